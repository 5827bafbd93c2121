/**
 * The data file and the write-ahead log as text, read back into pets, with errors a
 * person can act on (file-store.ts writes them).
 *
 * The file is a JSON array with one canonical pet per line (so a diff shows one line
 * per pet), written whole; any layout a person writes is read. A pet written by hand
 * without an `id` is read as unnumbered: the store gives it the next id and writes the
 * file again. The write-ahead log is one canonical pet per line, after a first line
 * holding the mark of the ids used.
 *
 * Reading takes `JSON.parse` (a million pets load at its speed) when that is exact:
 * every integer a safe one (any literal past 2^53 - 1 parses to an unsafe number), no
 * literal with a fraction or an exponent (which the lossless parser keeps apart from
 * `1`), no key given twice and none unknown (the count of `:` in the text is the count
 * of known keys, names with a `:` aside), and every pet, with its id, valid by a quick
 * check of the rules of `Pet`. Anything else, a valid file included, goes through the
 * lossless parser (../../schema/json.ts) and the shared validation, which also word
 * the errors.
 */
import { JsonSyntaxError, lineAndColumn, parseJson, type JsonValue } from "../../schema/json.js";
import { NAME_MAX_LENGTH, PET_STATUSES } from "../../schema/pet.js";
import { describeValue, formatProblems, validateStoredPet } from "../../schema/validate.js";
import { sortPets, StoreError, type StoredPet } from "./memory.js";

export interface PetFile {
  /** Sorted by id, no id twice. */
  pets: StoredPet[];
  /** The pets without an id, in file order. */
  unnumbered: Array<Omit<StoredPet, "id">>;
}

/**
 * The number of known keys of `value` when it is a pet with an id that `JSON.parse`
 * read exactly; else 0 (then the file is read losslessly).
 */
function quickKeys(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const { id, name, categoryId, status } = value as Record<string, unknown>;
  const valid =
    Number.isSafeInteger(id) &&
    Number.isSafeInteger(categoryId) &&
    typeof name === "string" &&
    name.length <= NAME_MAX_LENGTH &&
    // Not blank: a printable ASCII first character says so without trimming.
    ((name.charCodeAt(0) > 32 && name.charCodeAt(0) < 127) || name.trim() !== "") &&
    !name.includes(":") &&
    (status === undefined || PET_STATUSES.includes(status as never));
  return valid ? 3 + (status === undefined ? 0 : 1) : 0;
}

function quickRead(text: string): PetFile | undefined {
  // A literal with a fraction or an exponent, or text that looks like one.
  if (/[.eE][0-9+-]/.test(text)) return undefined;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(document)) return undefined;
  let keys = 0;
  // Indexed, not for-of: an iterator result per pet would cost a million allocations.
  for (let i = 0; i < document.length; i++) {
    const count = quickKeys(document[i]);
    if (count === 0) return undefined;
    keys += count;
  }
  let colons = 0;
  for (let at = text.indexOf(":"); at >= 0; at = text.indexOf(":", at + 1)) colons++;
  if (colons !== keys) return undefined;
  return sortPets(document) ? undefined : { pets: document, unnumbered: [] };
}

/**
 * Reads a pet file. `name` is how messages call it. Throws StoreError `invalid`: not
 * JSON (line and column), or not an array of valid pets with unique ids (index, line
 * and field); the caller adds what to do about it.
 */
export function parsePetFile(text: string, name: string): PetFile {
  return quickRead(text) ?? slowRead(text, name);
}

/** `parsePetFile` by the lossless parser, which words what is wrong. */
function slowRead(text: string, name: string): PetFile {
  const starts: number[] = [];
  let document: JsonValue;
  try {
    document = parseJson(text, starts);
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new StoreError("invalid", `${name} is not valid JSON: ${error.message}.`);
  }
  if (!Array.isArray(document)) {
    throw new StoreError(
      "invalid",
      `${name} must hold a JSON array of pets; it holds ${describeValue(document)}.`,
    );
  }
  const at = (index: number) =>
    `index ${index} (line ${lineAndColumn(text, starts[index] ?? 0).line})`;
  const pets: StoredPet[] = [];
  const indexes = new Map<StoredPet, number>();
  const unnumbered: PetFile["unnumbered"] = [];
  document.forEach((value, index) => {
    const checked = validateStoredPet(value);
    if (!checked.ok) {
      const problems = formatProblems(checked.problems);
      throw new StoreError(
        "invalid",
        `${name}: the pet at ${at(index)} is not valid: ${problems}.`,
      );
    }
    if (checked.value.id === undefined) return unnumbered.push(checked.value);
    pets.push(checked.value as StoredPet);
    indexes.set(checked.value as StoredPet, index);
  });
  const duplicate = sortPets(pets);
  if (duplicate === undefined) return { pets, unnumbered };
  const [first, second] = duplicate.map((pet) => at(indexes.get(pet)!));
  throw new StoreError(
    "invalid",
    `${name}: the pets at ${first} and ${second} both have id ${duplicate[0].id}; each pet needs its own id.`,
  );
}

/**
 * Reads the write-ahead log: its first line, `{"idsUsedUpTo":N}` (file-store.ts
 * writes it), then pets in the order acknowledged. Reading stops at the first line
 * that is incomplete or not a pet with an id: batches are synced one after another,
 * so only the last, unacknowledged one can be cut short, and everything after the
 * cut belongs to it (`tornBytes`).
 */
export function parseLog(text: string) {
  const mark = /^\{"idsUsedUpTo":(0|-?[1-9][0-9]{0,18})\}\n/.exec(text);
  let position = mark?.[0].length ?? 0;
  const pets: StoredPet[] = [];
  for (let end = text.indexOf("\n", position); end >= 0; end = text.indexOf("\n", position)) {
    const line = text.slice(position, end);
    let pet: StoredPet | undefined;
    try {
      const read = parsePetFile(`[${line}]`, "");
      if (read.pets.length === 1 && read.unnumbered.length === 0) pet = read.pets[0];
    } catch {
      // Not a pet: where the write was cut short.
    }
    // The log's ids only grow: anything else was not written whole.
    if (pet === undefined || !(pets.length === 0 || pet.id > pets[pets.length - 1]!.id)) break;
    pets.push(pet);
    position = end + 1;
  }
  const tornBytes = Buffer.byteLength(text.slice(position));
  return { idsUsedUpTo: mark ? BigInt(mark[1]!) : undefined, pets, tornBytes };
}
