/**
 * Opening the file store's files after a clean stop or a crash: clear the leftovers
 * of a write cut short, read the JSON file (seeding a new one), replay the write-ahead log
 * (a torn last line was never acknowledged), bring the file up to date, and start a
 * write-ahead log holding only the mark of the ids used. The file is left untouched when it
 * or the write-ahead log cannot be used.
 *
 * The ids used are the largest of the write-ahead log's mark and every id in the file and
 * the write-ahead log; a new file (missing or 0 bytes) is a new store, whose ids start
 * again from the pets it gets.
 */
import { unlink, type FileHandle } from "node:fs/promises";
import { syncDirectory } from "../../files/file-safety.js";
import { ignoreMissing } from "./durable.js";
import { parseWal, parsePetFile } from "./file-format.js";
import { clearLeftover, openWal, reopenOwn } from "./file-kinds.js";
import {
  NO_FILE,
  appendPoint,
  install,
  readVersion,
  statIfExists,
  versionKey,
  writeTemp,
  type FileVersion,
} from "./file-versions.js";
import { writeWalFile } from "./wal.js";
import { PetIndex, toStoredPet, type StoredPet } from "./pet-index.js";
import { demoPets } from "./seed.js";
import {
  describeNumbered,
  lackedPets,
  maxId,
  numberPets,
  withPets,
  type StorePaths,
  type StoreState,
} from "./store-state.js";
import { StoreError } from "./types.js";

export interface Recovered {
  /** Every acknowledged pet is in the file: nothing is unflushed. */
  state: StoreState;
  /** The write-ahead log, open, holding only the mark of the ids used. */
  wal: { handle: FileHandle; size: number };
  /** What this opening made that was not there before, for a start that fails. */
  created: Created;
}

export interface Created {
  /**
   * The data file, when it was new (`missing`, or `empty`: 0 bytes) and got no pet
   * from the write-ahead log; undefined when it held pets before or got some.
   */
  file: "missing" | "empty" | undefined;
  /** The write-ahead log did not exist. */
  wal: boolean;
}

export async function recover(
  paths: StorePaths,
  seed: number | undefined,
  log: (line: string) => void,
): Promise<Recovered> {
  // Leftovers of a write cut short; the file and the write-ahead log themselves are whole.
  await clearLeftover(`${paths.file}.tmp`);
  await clearLeftover(`${paths.wal}.tmp`);

  const walExisted = (await statIfExists(paths.wal)) !== undefined;
  const handle = await openWal(paths.wal);
  let recovered: Awaited<ReturnType<typeof recoverInto>>;
  try {
    recovered = await recoverInto(handle, paths, seed, log);
  } catch (error) {
    await handle.close();
    await removeCreated(paths, { file: undefined, wal: !walExisted }, undefined);
    throw error;
  }
  await handle.close();
  const { index, version, idsUsedUpTo, newFile } = recovered;
  const created = { file: newFile, wal: !walExisted };
  let wal: Recovered["wal"] | undefined;
  try {
    wal = await writeWalFile(paths, idsUsedUpTo, []);
    await syncDirectory(paths.directory);
  } catch (error) {
    await wal?.handle.close();
    await removeCreated(paths, created, version);
    throw error;
  }
  return {
    state: { index, version, unflushed: [], rewrite: false, idsUsedUpTo },
    wal,
    created,
  };
}

/**
 * Undoes what an opening created, for a start that fails: the data file when it
 * is still the `version` the opening wrote (removed, or emptied again), and the
 * write-ahead log. Never throws; what cannot be removed stays.
 */
export async function removeCreated(
  paths: StorePaths,
  created: Created,
  version: FileVersion | undefined,
): Promise<void> {
  const { file, wal, directory } = paths;
  try {
    if (
      created.file !== undefined &&
      versionKey(await statIfExists(file)) === versionKey(version?.stat)
    ) {
      if (created.file === "missing") {
        await unlink(file).catch(ignoreMissing);
      } else {
        const handle = await reopenOwn(file);
        await handle.truncate(0).finally(() => handle.close());
      }
    }
    if (created.wal) await unlink(wal).catch(ignoreMissing);
    await syncDirectory(directory);
  } catch {
    // A failed start still fails with its own error.
  }
}

/** Reads the file and the write-ahead log (`walHandle`), and brings the file up to date. */
async function recoverInto(
  walHandle: FileHandle,
  paths: StorePaths,
  seed: number | undefined,
  log: (line: string) => void,
): Promise<{
  index: PetIndex;
  version: FileVersion;
  idsUsedUpTo: bigint | undefined;
  newFile: Created["file"];
}> {
  const existing = await readVersion(paths.file, paths.name);
  const wal = parseWal(await walHandle.readFile());

  const fresh = existing === undefined || existing.bytes.length === 0;
  const walMax = wal.pets.reduce<bigint | undefined>((max, pet) => maxId(max, pet.id), undefined);
  // A new file is a new store: the mark of an earlier one does not count.
  let idsUsedUpTo = fresh ? walMax : maxId(wal.idsUsedUpTo, walMax);
  let pets: StoredPet[];
  let version: FileVersion;
  let numbered: StoredPet[] = [];
  if (fresh) {
    const seeding = seed !== undefined && seed > 0 && wal.pets.length === 0;
    pets = seeding ? demoPets(seed).map(toStoredPet) : [];
    version = NO_FILE;
  } else {
    const parsed = parsePetFile(existing.bytes, paths.name);
    pets = parsed.pets;
    version = { stat: existing.stat, ...appendPoint(parsed) };
    if (parsed.unnumbered.length > 0) {
      numbered = numberPets(pets, parsed.unnumbered, idsUsedUpTo);
      pets = pets.concat(numbered);
      // The file gets the new ids: written whole.
      version = { ...version, appendOffset: undefined };
    }
    if (seed !== undefined) {
      log(`${paths.name} already exists (${pets.length} pets): --seed ${seed} is ignored.`);
    }
  }

  if (wal.tornBytes > 0) {
    log(
      `Ignoring the last ${wal.tornBytes} bytes of ${paths.wal}: ` +
        "an entry cut short by a crash, never acknowledged.",
    );
  }
  const missing = walPetsNotIn(new PetIndex(pets), wal.pets, paths);
  pets = withPets(pets, missing);
  const index = new PetIndex(pets);
  idsUsedUpTo = maxId(idsUsedUpTo, index.maxId);

  if (fresh || missing.length > 0 || numbered.length > 0) {
    const next = await writeTemp(
      paths.file,
      version,
      version.appendOffset === undefined ? { whole: pets } : { append: missing },
    );
    await install(paths.file);
    version = next;
    if (fresh) log(`Created ${paths.name} with ${pets.length} pets.`);
    if (numbered.length > 0) log(describeNumbered(numbered, paths.name));
    if (missing.length > 0) {
      log(`Recovered ${missing.length} acknowledged pets from ${paths.wal} into ${paths.name}.`);
    }
  }

  const newFile = !fresh || missing.length > 0 ? undefined : existing ? "empty" : "missing";
  return { index, version, idsUsedUpTo, newFile };
}

/** The write-ahead log's pets that `index` lacks; refuses one whose id it holds as another pet. */
function walPetsNotIn(index: PetIndex, wal: StoredPet[], paths: StorePaths): StoredPet[] {
  const lacked = lackedPets(index, wal);
  if ("missing" in lacked) return lacked.missing;
  const { there, pet } = lacked.conflict;
  throw new StoreError(
    "invalid",
    `${paths.name} holds ${there}, but ${paths.wal} holds the acknowledged pet ${pet.json} ` +
      `with the same id. Give the pet in ${paths.name} another id, or remove ${paths.wal} ` +
      "to drop the acknowledged pets it holds.",
  );
}
