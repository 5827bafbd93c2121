/**
 * What petstore remembers between runs that is not configuration, in
 * `state.json` next to the config file (as gh keeps its state.yml): when a
 * notice was last shown, per profile. It is a convenience, never a reason to
 * fail: a state file that is missing, damaged, too large, a link, a FIFO or a
 * directory reads as empty; writing is an atomic replace (a new private file
 * renamed over the name, never following a link) that reports failure instead
 * of throwing. Two runs writing at once may lose one entry: a notice then shows
 * once more.
 */
import { closeSync, constants, fstatSync, readSync } from "node:fs";
import { join } from "node:path";
import { openNoFollowSync } from "../files/file-safety.js";
import { configDir } from "./config-dir.js";

const STATE_FILE_NAME = "state.json";
/** Far more than a few profiles' dates; anything larger is not ours. */
const MAX_STATE_BYTES = 64 * 1024;

/** notice name -> profile name -> when it was last shown (Unix ms). */
type NoticeState = Record<string, Record<string, number>>;

function statePath(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return join(configDir(env), STATE_FILE_NAME);
  } catch {
    return undefined; // No HOME and no home directory: nothing to remember with.
  }
}

function readText(path: string): string | undefined {
  let fd: number;
  try {
    fd = openNoFollowSync(path, constants.O_RDONLY);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size > MAX_STATE_BYTES) return undefined;
    const buffer = Buffer.alloc(stats.size);
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    return buffer.toString("utf8", 0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Only well-formed entries survive: anything else in the file is dropped. */
function parseState(text: string | undefined): NoticeState {
  const state: NoticeState = Object.create(null);
  let json: unknown;
  try {
    json = text === undefined ? undefined : JSON.parse(text);
  } catch {
    return state;
  }
  const notices = isRecord(json) ? json.notices : undefined;
  if (!isRecord(notices)) return state;
  for (const [notice, profiles] of Object.entries(notices)) {
    if (!isRecord(profiles)) continue;
    const shown: Record<string, number> = Object.create(null);
    for (const [profile, at] of Object.entries(profiles)) {
      if (typeof at === "string" && Number.isFinite(Date.parse(at)))
        shown[profile] = Date.parse(at);
    }
    state[notice] = shown;
  }
  return state;
}

function readNoticeState(env: NodeJS.ProcessEnv): NoticeState {
  const path = statePath(env);
  return path === undefined ? Object.create(null) : parseState(readText(path));
}

/** When `notice` was last shown for `profile`, if the state remembers it. */
export function lastShown(
  env: NodeJS.ProcessEnv,
  notice: string,
  profile: string,
): number | undefined {
  const shown = readNoticeState(env)[notice];
  return shown !== undefined && Object.hasOwn(shown, profile) ? shown[profile] : undefined;
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
  const state = readNoticeState(env);
  // Null prototypes: a profile may be called __proto__.
  const notices: Record<string, Record<string, string>> = Object.create(null);
  state[notice] ??= Object.create(null);
  for (const [name, profiles] of Object.entries(state)) {
    const kept: Record<string, string> = Object.create(null);
    for (const [who, at] of Object.entries(profiles)) {
      if (at >= forgetBeforeMs) kept[who] = new Date(at).toISOString();
    }
    notices[name] = kept;
  }
  notices[notice]![profile] = new Date(atMs).toISOString();
  try {
    // Loaded only here: the directory is checked (and created, 0700) as for the config file itself.
    const { ensureConfigDir, writeFileAtomicSync } = await import("./config-write.js");
    ensureConfigDir(configDir(env));
    writeFileAtomicSync(path, `${JSON.stringify({ notices }, null, "\t")}\n`, 0o600);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
}
