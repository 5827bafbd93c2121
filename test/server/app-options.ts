/** `createApp`'s options as `startServer` gives them: the options schema's defaults, then `given`. */
import type { AppOptions } from "../../src/server/app.js";
import { parse, START_OPTIONS } from "../../src/server/options.js";

export function appOptions(given: Partial<AppOptions>): AppOptions {
  return { ...parse(START_OPTIONS, {}, "test"), host: undefined, log: undefined, ...given };
}
