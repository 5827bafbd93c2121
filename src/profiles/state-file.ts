/**
 * What petstore remembers between runs that is not configuration, in
 * `state.json` next to the config file (as gh keeps its state.yml): when a
 * notice was last shown, per profile. It is a convenience, never a reason to
 * fail: a state file that is missing, damaged, too large, a link, a FIFO or a
 * directory reads as empty; it is written as the config is (an atomic replace
 * that never follows a link), and a failure is reported, not thrown. Two runs
 * writing at once may lose one entry: a notice then shows once more.
 */
import { join } from "node:path";
import * as z from "zod/mini";
import { configDir } from "./config-dir.js";
import { readNoFollow } from "../files/file-safety.js";

/** Far more than a few profiles' dates; anything larger is not ours. */
const MAX_STATE_BYTES = 64 * 1024;

/** notice name -> profile name -> when it was last shown (an ISO date). */
type Notices = Record<string, Record<string, string>>;

/** Built on first use, as the config's schema is. */
let stateSchema: z.ZodMiniType<{ notices: Notices }> | undefined;

function statePath(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return join(configDir(env), "state.json");
  } catch {
    return undefined; // No HOME and no home directory: nothing to remember with.
  }
}

function readNotices(path: string): Notices {
  try {
    const text = readNoFollow(path, (opened) => {
      if (!opened.isFile() || opened.size > MAX_STATE_BYTES) throw new Error("not a state file");
    });
    stateSchema ??= z.object({ notices: z.record(z.string(), z.record(z.string(), z.string())) });
    return stateSchema.parse(JSON.parse(text)).notices;
  } catch {
    return {};
  }
}

/** When `notice` was last shown for `profile`, if the state remembers it. */
export function lastShown(
  env: NodeJS.ProcessEnv,
  notice: string,
  profile: string,
): number | undefined {
  const path = statePath(env);
  const shown = path === undefined ? undefined : readNotices(path)[notice];
  return shown && Object.hasOwn(shown, profile) ? Date.parse(shown[profile]!) : undefined;
}

/**
 * Records that `notice` was shown for `profile` at `atMs`, dropping entries
 * older than `forgetBeforeMs` (they no longer hold anything back). Returns the
 * reason it could not, or undefined once it is written.
 */
export async function rememberShown(
  env: NodeJS.ProcessEnv,
  notice: string,
  profile: string,
  atMs: number,
  forgetBeforeMs: number,
): Promise<string | undefined> {
  const path = statePath(env);
  if (path === undefined) return "there is no config directory";
  const notices = readNotices(path);
  notices[notice] = { ...notices[notice], [profile]: new Date(atMs).toISOString() };
  for (const shown of Object.values(notices)) {
    for (const [who, at] of Object.entries(shown)) {
      if (!(Date.parse(at) >= forgetBeforeMs)) delete shown[who];
    }
  }
  try {
    // Loaded only here: the directory is checked (and created, 0700) as for the config file itself.
    const { ensureConfigDir, writePrivateFile } = await import("./config-write.js");
    ensureConfigDir(configDir(env));
    await writePrivateFile(path, `${JSON.stringify({ notices }, null, "\t")}\n`);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
}
