/**
 * Compaction: the pets acknowledged in the write-ahead log go into the JSON file. The file
 * is copied (a kernel copy), the new pets are written over its closing bracket, and
 * the copy is fsynced and renamed over the file, the directory fsynced; the write-ahead log
 * is then cut down to the pets that arrived meanwhile. The event loop only formats
 * the new pets, so the cost of a compaction does not grow with the store. A file
 * with no place to append (new, deleted, 0 bytes) is written whole.
 *
 * Changes the state's `version` and `unflushed` (the pets written leave it).
 */
import { unlink } from "node:fs/promises";
import { ignoreMissing } from "./durable.js";
import { install, statIfExists, versionKey, writeTemp } from "./file-versions.js";
import type { WriteAheadLog } from "./wal.js";
import type { StoreState } from "./store-state.js";

/** Whether the file lacks pets (or ids) the store serves, or does not exist yet. */
export function needsCompaction(state: StoreState): boolean {
  return state.unflushed.length > 0 || state.version.stat === undefined || state.rewrite;
}

export async function compact(file: string, state: StoreState, wal: WriteAheadLog): Promise<void> {
  const count = state.unflushed.length;
  const base = state.version;
  const next = await writeTemp(
    file,
    base,
    base.appendOffset !== undefined && count > 0
      ? { append: state.unflushed.slice(0, count) }
      : { whole: state.index.pets.slice() },
  );
  // An edit that landed while the copy was being written wins: it is adopted next time.
  if (versionKey(await statIfExists(file)) !== versionKey(base.stat)) {
    await unlink(`${file}.tmp`).catch(ignoreMissing);
    return;
  }
  await install(file);
  state.version = next;
  state.rewrite = false;
  state.unflushed.splice(0, count);
  await wal.trim();
}
