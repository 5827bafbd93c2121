/**
 * The commands that only the commander program runs; kept out of runner.ts so
 * the hot bundle (list, get, add) does not carry them.
 */
import type { Runners } from "./runner.js";

/** Keyed by the command's path: `auth login`. */
export const COLD_COMMAND_RUNNERS: Runners = {
  "auth login": () => import("./auth/login.js"),
  "auth status": () => import("./auth/status.js"),
  "auth logout": () => import("./auth/logout.js"),
  "profile list": () => import("./profile/list.js"),
  "profile use": () => import("./profile/use.js"),
  "profile show": () => import("./profile/show.js"),
  "profile remove": () => import("./profile/remove.js"),
  completion: () => import("./completion.js"),
  __complete: () => import("./complete.js"),
};
