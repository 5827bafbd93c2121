/**
 * Opening the file store's files after a clean stop or a crash: clear the leftovers
 * of a write cut short, read the JSON file (seeding a new one), replay the journal
 * (a torn last line was never acknowledged), bring the file up to date, and start a
 * journal holding only the mark of the ids used. The file is left untouched when it
 * or the journal cannot be used.
 *
 * The ids used are the largest of the journal's mark and every id in the file and
 * the journal; a new file (missing or 0 bytes) is a new store, whose ids start
 * again from the pets it gets.
 */
import { unlink, type FileHandle } from "node:fs/promises";
import { syncDirectory } from "../../schema/file-safety.js";
import { ignoreMissing } from "./durable.js";
import { parseJournal, parsePetFile } from "./file-format.js";
import { clearLeftover, openJournal, reopenOwn } from "./file-kinds.js";
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
import { writeJournalFile } from "./journal.js";
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
  /** The journal, open, holding only the mark of the ids used. */
  journal: { handle: FileHandle; size: number };
  /** What this opening made that was not there before, for a start that fails. */
  created: Created;
}

export interface Created {
  /**
   * The data file, when it was new (`missing`, or `empty`: 0 bytes) and got no pet
   * from the journal; undefined when it held pets before or got some.
   */
  file: "missing" | "empty" | undefined;
  /** The journal did not exist. */
  journal: boolean;
}

export async function recover(
  paths: StorePaths,
  seed: number | undefined,
  log: (line: string) => void,
): Promise<Recovered> {
  // Leftovers of a write cut short; the file and the journal themselves are whole.
  await clearLeftover(`${paths.file}.tmp`);
  await clearLeftover(`${paths.journal}.tmp`);

  const journalExisted = (await statIfExists(paths.journal)) !== undefined;
  const handle = await openJournal(paths.journal);
  let recovered: Awaited<ReturnType<typeof recoverInto>>;
  try {
    recovered = await recoverInto(handle, paths, seed, log);
  } catch (error) {
    await handle.close();
    await removeCreated(paths, { file: undefined, journal: !journalExisted }, undefined);
    throw error;
  }
  await handle.close();
  const { index, version, idsUsedUpTo, newFile } = recovered;
  const created = { file: newFile, journal: !journalExisted };
  let journal: Recovered["journal"] | undefined;
  try {
    journal = await writeJournalFile(paths, idsUsedUpTo, []);
    await syncDirectory(paths.directory);
  } catch (error) {
    await journal?.handle.close();
    await removeCreated(paths, created, version);
    throw error;
  }
  return {
    state: { index, version, unflushed: [], rewrite: false, idsUsedUpTo },
    journal,
    created,
  };
}

/**
 * Undoes what an opening created, for a start that fails: the data file when it
 * is still the `version` the opening wrote (removed, or emptied again), and the
 * journal. Never throws; what cannot be removed stays.
 */
export async function removeCreated(
  paths: StorePaths,
  created: Created,
  version: FileVersion | undefined,
): Promise<void> {
  const { file, journal, directory } = paths;
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
    if (created.journal) await unlink(journal).catch(ignoreMissing);
    await syncDirectory(directory);
  } catch {
    // A failed start still fails with its own error.
  }
}

/** Reads the file and the journal (`journalHandle`), and brings the file up to date. */
async function recoverInto(
  journalHandle: FileHandle,
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
  const journal = parseJournal(await journalHandle.readFile());

  const fresh = existing === undefined || existing.bytes.length === 0;
  const journalMax = journal.pets.reduce<bigint | undefined>(
    (max, pet) => maxId(max, pet.id),
    undefined,
  );
  // A new file is a new store: the mark of an earlier one does not count.
  let idsUsedUpTo = fresh ? journalMax : maxId(journal.idsUsedUpTo, journalMax);
  let pets: StoredPet[];
  let version: FileVersion;
  let numbered: StoredPet[] = [];
  if (fresh) {
    const seeding = seed !== undefined && seed > 0 && journal.pets.length === 0;
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

  if (journal.tornBytes > 0) {
    log(
      `Ignoring the last ${journal.tornBytes} bytes of ${paths.journal}: ` +
        "an entry cut short by a crash, never acknowledged.",
    );
  }
  const missing = journalPetsNotIn(new PetIndex(pets), journal.pets, paths);
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
      log(
        `Recovered ${missing.length} acknowledged pets from ${paths.journal} into ${paths.name}.`,
      );
    }
  }

  const newFile = !fresh || missing.length > 0 ? undefined : existing ? "empty" : "missing";
  return { index, version, idsUsedUpTo, newFile };
}

/** The journal's pets that `index` lacks; refuses one whose id it holds as another pet. */
function journalPetsNotIn(index: PetIndex, journal: StoredPet[], paths: StorePaths): StoredPet[] {
  const lacked = lackedPets(index, journal);
  if ("missing" in lacked) return lacked.missing;
  const { there, pet } = lacked.conflict;
  throw new StoreError(
    "invalid",
    `${paths.name} holds ${there}, but ${paths.journal} holds the acknowledged pet ${pet.json} ` +
      `with the same id. Give the pet in ${paths.name} another id, or remove ${paths.journal} ` +
      "to drop the acknowledged pets it holds.",
  );
}
