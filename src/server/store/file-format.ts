/**
 * The pet file and the write-ahead log as bytes: reading them back into pets with errors a
 * person can act on, and the text appended to them.
 *
 * The file is a JSON array with one canonical pet per line, so a diff shows one
 * line per pet and new pets are appended before the closing bracket. Any other
 * layout a person writes by hand is read too (through the lossless parser), and
 * kept as written: appends go after its last element. A pet written by hand
 * without an `id` is read as unnumbered: the store gives it the next id and
 * rewrites the file (see `numberPets`). The write-ahead log's pets always have an id; its
 * first line may be the mark of the ids used (`idsMarkLine`).
 */
import { jsonKindOf } from "../../schema/validate.js";
import { JsonSyntaxError, lineAndColumn, parseJson, type JsonValue } from "../../schema/json.js";
import { INT64_MAX, INT64_MIN, petToJson, type Pet, type PetStatus } from "../../schema/pet.js";
import {
  describeValue,
  formatProblems,
  validateNewPet,
  type Problem,
} from "../../schema/validate.js";
import { sortPets, type StoredPet } from "./pet-index.js";
import { StoreError } from "./types.js";

/** A pet of the file without an `id`. */
export type UnnumberedPet = Omit<Pet, "id">;

export interface PetFile {
  /** Sorted by id, no id twice. */
  pets: StoredPet[];
  /** The pets without an id, in file order. */
  unnumbered: UnnumberedPet[];
  /**
   * Byte offset just after the last element (or after `[` when there is none):
   * where `appendText` goes, replacing the rest of the file.
   */
  appendOffset: number;
  hasElements: boolean;
}

/** Whole-file text, in pieces so a million pets never make one 70 MB string. */
export function* fileTextChunks(pets: readonly StoredPet[], chunkSize = 10_000): Generator<string> {
  if (pets.length === 0) {
    yield "[]\n";
    return;
  }
  for (let start = 0; start < pets.length; start += chunkSize) {
    const lines = pets.slice(start, start + chunkSize).map((p) => p.json);
    yield (start === 0 ? "[\n" : ",\n") + lines.join(",\n");
  }
  yield "\n]\n";
}

/** Byte offset where the next append goes in a file written by `fileTextChunks`. */
export function appendOffsetOfWholeFile(byteLength: number, petCount: number): number {
  return petCount === 0 ? 1 : byteLength - "\n]\n".length;
}

/** What replaces the file from `appendOffset` on to add `pets` at the end. */
export function appendText(pets: readonly StoredPet[], hasElements: boolean): string {
  return (hasElements ? ",\n" : "\n") + pets.map((p) => p.json).join(",\n") + "\n]\n";
}

/** Byte offset of the next append after `appendText` of `textBytes` bytes at `offset`. */
export function appendOffsetAfter(offset: number, textBytes: number): number {
  return offset + textBytes - "\n]\n".length;
}

// A canonical pet line: what petToJson writes, with a name that needs no escapes.
// Anything else goes through the lossless parser and the shared validation.
const CANONICAL_PET =
  // eslint-disable-next-line no-control-regex -- control characters must be escaped in JSON
  /^\{"id":(0|-?[1-9][0-9]{0,18}),"name":"([^"\\\u0000-\u001f]{1,200})","categoryId":(0|-?[1-9][0-9]{0,18})(?:,"status":"(available|pending|sold)")?\}$/;

function int64(digits: string): bigint | undefined {
  const value = BigInt(digits);
  return digits.length < 19 || (value >= INT64_MIN && value <= INT64_MAX) ? value : undefined;
}

/** A canonical line as a pet, keeping the line itself as its JSON; undefined when not canonical. */
function canonicalLine(line: string): StoredPet | undefined {
  const match = CANONICAL_PET.exec(line);
  if (match === null || match[2]!.trim() === "") return undefined;
  const id = int64(match[1]!);
  if (id === undefined || int64(match[3]!) === undefined) return undefined;
  return { id, status: match[4] as PetStatus | undefined, json: line };
}

const PET_FIELDS = ["id", "name", "categoryId", "status"];
const ID_RULE = `must be an integer from ${INT64_MIN} to ${INT64_MAX}`;

type Entry = StoredPet | UnnumberedPet;

function isNumbered(entry: Entry): entry is StoredPet {
  return "json" in entry;
}

/**
 * A parsed JSON value as a pet, with the shared validation messages when it is not
 * one; without an `id` it is an unnumbered pet when `idOptional`.
 */
function validateStoredPet(
  value: JsonValue,
  idOptional = false,
): { ok: true; pet: Entry } | { ok: false; problems: Problem[] } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      problems: [
        {
          field: "pet",
          problem: `must be a JSON object with id, name and categoryId; got ${describeValue(value)}`,
        },
      ],
    };
  }
  const problems: Problem[] = [];
  const { id, ...rest } = value;
  if (id === undefined) {
    if (!idOptional) problems.push({ field: "id", problem: "is required" });
  } else if (typeof id !== "bigint" || id < INT64_MIN || id > INT64_MAX) {
    problems.push({ field: "id", problem: `${ID_RULE}; got ${describeValue(id)}` });
  }
  for (const key of Object.keys(rest)) {
    if (!PET_FIELDS.includes(key)) {
      problems.push({ field: key, problem: `unknown field; allowed: ${PET_FIELDS.join(", ")}` });
      delete rest[key];
    }
  }
  const checked = validateNewPet(rest);
  if (!checked.ok) problems.push(...checked.problems);
  if (problems.length > 0 || !checked.ok) return { ok: false, problems };
  if (id === undefined) return { ok: true, pet: checked.value };
  const pet: Pet = { id: id as bigint, ...checked.value };
  return { ok: true, pet: { id: pet.id, status: pet.status, json: petToJson(pet) } };
}

/**
 * Reads a pet file. `name` is how messages call it. Throws StoreError `corrupt`
 * (not JSON: line and column) or `invalid` (not an array of valid pets with unique
 * ids: index, line and field); the caller adds what to do about it.
 */
export function parsePetFile(bytes: Buffer, name: string): PetFile {
  const text = bytes.toString("utf8");
  const lines = fastPath(text, name) ?? slowPath(text, name);
  const pets: StoredPet[] = [];
  /** The index in the file of each of `pets`. */
  const indexes: number[] = [];
  const unnumbered: UnnumberedPet[] = [];
  lines.pets.forEach((entry, index) => {
    if (!isNumbered(entry)) return unnumbered.push(entry);
    pets.push(entry);
    indexes.push(index);
  });
  const duplicate = sortPets(pets);
  if (duplicate) {
    const id = pets[duplicate.first]!.id;
    const [first, second] = [indexes[duplicate.first]!, indexes[duplicate.second]!];
    throw new StoreError(
      "invalid",
      `${name}: the pets at index ${first} (line ${lines.lineOf(first)}) and ` +
        `index ${second} (line ${lines.lineOf(second)}) both have id ${id}; ` +
        `each pet needs its own id.`,
    );
  }
  return {
    pets,
    unnumbered,
    appendOffset: appendOffsetOf(bytes),
    hasElements: lines.pets.length > 0,
  };
}

interface ParsedPets {
  /** In file order. */
  pets: Entry[];
  lineOf: (index: number) => number;
}

function invalidPet(name: string, index: number, line: number, problems: Problem[]): StoreError {
  return new StoreError(
    "invalid",
    `${name}: the pet at index ${index} (line ${line}) is not valid: ${formatProblems(problems)}.`,
  );
}

/**
 * One pet per line, as this store writes it. Returns undefined at the first sign of
 * another layout or of a syntax error, so the whole-document parser can say where.
 */
function fastPath(text: string, name: string): ParsedPets | undefined {
  if (!text.startsWith("[\n")) return undefined;
  const pets: Entry[] = [];
  let position = 2;
  let line = 2;
  let expectMore = true;
  for (; ; line++) {
    const end = text.indexOf("\n", position);
    if (end < 0) return undefined;
    let body = text.slice(position, end);
    position = end + 1;
    if (body === "]") {
      if (pets.length > 0 && expectMore) return undefined;
      return text.slice(position).trim() === "" ? { pets, lineOf: (i) => i + 2 } : undefined;
    }
    if (!expectMore) return undefined;
    expectMore = body.endsWith(",");
    if (expectMore) body = body.slice(0, -1);
    let pet: Entry | undefined = canonicalLine(body);
    if (pet === undefined) {
      let value: JsonValue;
      try {
        value = parseJson(body);
      } catch {
        return undefined;
      }
      const checked = validateStoredPet(value, true);
      if (!checked.ok) throw invalidPet(name, pets.length, line, checked.problems);
      pet = checked.pet;
    }
    pets.push(pet);
  }
}

function slowPath(text: string, name: string): ParsedPets {
  let document: JsonValue;
  try {
    document = parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      throw new StoreError("corrupt", `${name} is not valid JSON: ${error.message}.`);
    }
    throw error;
  }
  if (!Array.isArray(document)) {
    throw new StoreError(
      "invalid",
      `${name} must hold a JSON array of pets; it holds ${jsonKindOf(document)}.`,
    );
  }
  let starts: number[] | undefined;
  const lineOf = (index: number) => {
    starts ??= elementStarts(text);
    return lineAndColumn(text, starts[index] ?? 0).line;
  };
  const pets = document.map((value, index) => {
    const checked = validateStoredPet(value, true);
    if (!checked.ok) throw invalidPet(name, index, lineOf(index), checked.problems);
    return checked.pet;
  });
  return { pets, lineOf };
}

/** Character offsets where the elements of a valid top-level JSON array start. */
function elementStarts(text: string): number[] {
  const starts: number[] = [];
  let depth = 0;
  let inString = false;
  let expectElement = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 32 || c === 10 || c === 13 || c === 9) continue;
    if (expectElement && depth === 1) {
      starts.push(i);
      expectElement = false;
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth === 1) expectElement = true;
    } else if (c === 93 || c === 125) depth--;
    else if (c === 44 && depth === 1) expectElement = true;
  }
  return starts;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 32 || byte === 10 || byte === 13 || byte === 9;
}

/** Where appends go in a valid array file: just after the last byte before `]` that is not white space. */
function appendOffsetOf(bytes: Buffer): number {
  let close = bytes.length - 1;
  while (close > 0 && isSpace(bytes[close])) close--;
  let last = close - 1;
  while (last > 0 && isSpace(bytes[last])) last--;
  return last + 1;
}

export interface WalRead {
  /** In write-ahead log order. */
  pets: StoredPet[];
  /** The largest id the store ever used, from the write-ahead log's first line; undefined without one. */
  idsUsedUpTo: bigint | undefined;
  /** Bytes after the last whole entry: a write cut short, never acknowledged. */
  tornBytes: number;
}

const IDS_MARK = /^\{"idsUsedUpTo":(0|-?[1-9][0-9]{0,18})\}$/;

/**
 * The write-ahead log's first line: the largest id the store ever used (given to a created
 * pet, or held by a pet it served), so that no id is given out twice even once the
 * pet that had it is gone from the file.
 */
export function idsMarkLine(idsUsedUpTo: bigint | undefined): string {
  return idsUsedUpTo === undefined ? "" : `{"idsUsedUpTo":${idsUsedUpTo}}\n`;
}

/**
 * Reads the write-ahead log: the mark of the ids used (first line, optional), then one
 * canonical pet per line. Reading stops at the first line that is incomplete or
 * not a pet: batches are synced one after another, so only the last,
 * unacknowledged one can be cut short, and everything after the cut belongs to it.
 */
export function parseWal(bytes: Buffer): WalRead {
  const text = bytes.toString("utf8");
  const pets: StoredPet[] = [];
  let idsUsedUpTo: bigint | undefined;
  let position = 0;
  const firstEnd = text.indexOf("\n");
  const mark = firstEnd < 0 ? null : IDS_MARK.exec(text.slice(0, firstEnd));
  if (mark !== null) {
    idsUsedUpTo = int64(mark[1]!);
    if (idsUsedUpTo !== undefined) position = firstEnd + 1;
  }
  for (;;) {
    const end = text.indexOf("\n", position);
    if (end < 0) break;
    const line = text.slice(position, end);
    let pet = canonicalLine(line);
    if (pet === undefined) {
      try {
        const checked = validateStoredPet(parseJson(line));
        if (!checked.ok || !isNumbered(checked.pet)) break;
        pet = checked.pet;
      } catch {
        break;
      }
    }
    pets.push(pet);
    position = end + 1;
  }
  return { pets, idsUsedUpTo, tornBytes: Buffer.byteLength(text.slice(position)) };
}
