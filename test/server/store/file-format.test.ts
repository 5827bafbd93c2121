import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringifyJson } from "../../../src/schema/json.js";
import {
  INT64_MAX,
  INT64_MIN,
  PET_STATUSES,
  petToJson,
  type Pet,
} from "../../../src/schema/pet.js";
import {
  appendOffsetAfter,
  appendText,
  fileTextChunks,
  parseWal,
  parsePetFile,
} from "../../../src/server/store/file-format.js";
import { toStoredPet } from "../../../src/server/store/pet-index.js";

const petArbitrary = fc.record(
  {
    id: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    name: fc
      .string({ minLength: 1, maxLength: 30, unit: "grapheme" })
      .filter((s) => s.trim() !== ""),
    categoryId: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
    status: fc.constantFrom(...PET_STATUSES),
  },
  { requiredKeys: ["id", "name", "categoryId"] },
) as fc.Arbitrary<Pet>;

const petsArbitrary = fc.uniqueArray(petArbitrary, { selector: (p) => p.id, maxLength: 20 });

const canonical = (pets: Pet[]) => [...fileTextChunks(pets.map(toStoredPet), 3)].join("");
const byId = (pets: Pet[]) => [...pets].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

describe("pet file format", () => {
  it("reads back what it writes, and a pretty-printed file the same way", () => {
    fc.assert(
      fc.property(petsArbitrary, (pets) => {
        const expected = byId(pets).map(petToJson);
        const written = parsePetFile(Buffer.from(canonical(pets)), "pets.json");
        expect(written.pets.map((p) => p.json)).toEqual(expected);
        const pretty = parsePetFile(Buffer.from(stringifyJson(pets, 2)), "pets.json");
        expect(pretty.pets.map((p) => p.json)).toEqual(expected);
      }),
    );
  });

  it("appends after the last element of any layout, keeping the file valid", () => {
    fc.assert(
      fc.property(petsArbitrary, fc.boolean(), (pets, pretty) => {
        const [first, rest] = [pets.slice(0, pets.length >> 1), pets.slice(pets.length >> 1)];
        const text = pretty ? stringifyJson(first, 2) + "\n\n" : canonical(first);
        const file = parsePetFile(Buffer.from(text), "pets.json");
        if (rest.length === 0) return;
        const tail = Buffer.from(appendText(rest.map(toStoredPet), file.hasElements));
        const bytes = Buffer.concat([Buffer.from(text).subarray(0, file.appendOffset), tail]);
        const after = parsePetFile(bytes, "pets.json");
        expect(after.pets.map((p) => p.json)).toEqual(byId(pets).map(petToJson));
        expect(after.appendOffset).toBe(appendOffsetAfter(file.appendOffset, tail.length));
        if (!pretty) expect(bytes.toString()).toBe(canonical(pets));
      }),
    );
  });

  it.each(["[]", "[ ]\n", "[\n]\n"])("appends to the empty array %j", (text) => {
    const file = parsePetFile(Buffer.from(text), "pets.json");
    const pet = toStoredPet({ id: 1n, name: "A", categoryId: 1n });
    const bytes = text.slice(0, file.appendOffset) + appendText([pet], file.hasElements);
    expect(bytes).toBe(`[\n${pet.json}\n]\n`);
  });

  it("reads the write-ahead log up to a torn or garbled entry", () => {
    const a = petToJson({ id: 1n, name: "A", categoryId: 1n, status: "sold" });
    const b = petToJson({ id: 2n, name: "B", categoryId: 1n });
    const whole = parseWal(Buffer.from(`${a}\n${b}\n`));
    expect(whole.pets.map((p) => p.json)).toEqual([a, b]);
    expect(whole.tornBytes).toBe(0);
    const torn = parseWal(Buffer.from(`${a}\n${b.slice(0, 10)}`));
    expect(torn.pets.map((p) => p.json)).toEqual([a]);
    expect(torn.tornBytes).toBe(10);
    const garbled = parseWal(Buffer.from(`${a}\n\0\0\0\n${b}\n`));
    expect(garbled.pets.map((p) => p.json)).toEqual([a]);
    expect(garbled.tornBytes).toBe(4 + b.length + 1);
  });
});
