/**
 * Opening the file store's files after a clean stop or a crash: clear the leftovers
 * of a write cut short, read the JSON file (seeding a new one), replay the journal
 * (a torn last line was never acknowledged), bring the file up to date, and start an
 * empty journal. The file is left untouched when it or the journal cannot be used.
 */
import type { FileHandle } from "node:fs/promises";
import { syncDirectory } from "../../schema/file-safety.js";
import { parseJournal, parsePetFile } from "./file-format.js";
import { clearLeftover, openJournal } from "./file-kinds.js";
import {
  NO_FILE,
  appendPoint,
  install,
  readVersion,
  writeTemp,
  type FileVersion,
} from "./file-versions.js";
import { PetIndex, toStoredPet, type StoredPet } from "./pet-index.js";
import { demoPets } from "./seed.js";
import {
  describeNumbered,
  lackedPets,
  numberPets,
  withPets,
  type StorePaths,
  type StoreState,
} from "./store-state.js";
import { StoreError } from "./types.js";

export interface Recovered {
  /** Every acknowledged pet is in the file: nothing is unflushed. */
  state: StoreState;
  /** The journal, open and empty. */
  journal: FileHandle;
}

export async function recover(
  paths: StorePaths,
  seed: number | undefined,
  log: (line: string) => void,
): Promise<Recovered> {
  // Leftovers of a write cut short; the file and the journal themselves are whole.
  await clearLeftover(`${paths.file}.tmp`);
  await clearLeftover(`${paths.journal}.tmp`);

  const handle = await openJournal(paths.journal);
  try {
    const { index, version } = await recoverInto(handle, paths, seed, log);
    await handle.truncate(0);
    await handle.sync();
    await syncDirectory(paths.directory);
    return { state: { index, version, unflushed: [], rewrite: false }, journal: handle };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Reads the file and the journal (`journalHandle`), and brings the file up to date. */
async function recoverInto(
  journalHandle: FileHandle,
  paths: StorePaths,
  seed: number | undefined,
  log: (line: string) => void,
): Promise<{ index: PetIndex; version: FileVersion }> {
  const existing = await readVersion(paths.file, paths.name);
  const journal = parseJournal(await journalHandle.readFile());

  const fresh = existing === undefined || existing.bytes.length === 0;
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
      const journalMax = journal.pets.reduce<bigint | undefined>(
        (max, pet) => (max === undefined || pet.id > max ? pet.id : max),
        undefined,
      );
      numbered = numberPets(pets, parsed.unnumbered, journalMax);
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

  return { index, version };
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
