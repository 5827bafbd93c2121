/**
 * Reset: the file store goes back to the pets it held when it was opened. The
 * rename of the new file is the one step that switches from the pets before to
 * the pets after, so a crash at any moment leaves one or the other, whole:
 *
 * 1. Between write-ahead log writes (nothing is being acknowledged meanwhile), pets that
 *    are acknowledged but not in the file yet are written into it (a whole new
 *    file, renamed over it), and only then is the write-ahead log emptied down to the
 *    mark of the ids used: its pets may go because the file holds them all.
 * 2. The opening pets are written to `<file>.tmp`, fsynced and renamed over the
 *    file, the directory fsynced. A start after that reads them, with a write-ahead log
 *    of no pets: no acknowledged pet from before the reset comes back.
 *
 * Ids are not rewound: the mark keeps the largest id used, and new pets get ids
 * above it, so an id a client saw before the reset never names another pet.
 *
 * The same protections as a compaction: the temporary file is created anew,
 * never through a symlink, and removed when the disk refuses it (the pets served
 * are then unchanged and the caller is told).
 *
 * Changes the state's `index`, `unflushed`, `version` and `rewrite`; never `idsUsedUpTo`.
 */
import { NO_FILE, install, writeTemp } from "./file-versions.js";
import type { WriteAheadLog } from "./wal.js";
import { PetIndex, type StoredPet } from "./pet-index.js";
import type { StorePaths, StoreState } from "./store-state.js";

export function resetFile(
  paths: StorePaths,
  state: StoreState,
  wal: WriteAheadLog,
  opening: readonly StoredPet[],
): Promise<void> {
  return wal.exclusively(async () => {
    if (state.unflushed.length > 0) {
      const flushed = await writeTemp(paths.file, NO_FILE, { whole: state.index.pets.slice() });
      await install(paths.file);
      state.version = flushed;
      state.unflushed = [];
    }
    await wal.replaceWithin([]);
    const next = await writeTemp(paths.file, NO_FILE, { whole: opening });
    await install(paths.file);
    state.version = next;
    state.index = new PetIndex(opening.slice());
    // The file was just written whole: nothing is left for a whole rewrite to fix.
    state.rewrite = false;
  });
}
