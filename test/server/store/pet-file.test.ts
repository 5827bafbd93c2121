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
import { fileText } from "../../../src/server/store/file-store.js";
import { parseLog, parsePetFile } from "../../../src/server/store/pet-file.js";

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
/** Small ids and categoryIds: what `JSON.parse` reads exactly. */
const safePets = fc.uniqueArray(
  fc.record({
    id: fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }),
    name: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== ""),
    categoryId: fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }),
  }),
  { selector: (p) => p.id, maxLength: 20 },
) as fc.Arbitrary<Pet[]>;

const canonical = (pets: Pet[]) => [...fileText(pets, 3)].join("");
const byId = (pets: Pet[]) => [...pets].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const jsonOf = (text: string) => parsePetFile(text, "pets.json").pets.map((p) => petToJson(p));

describe("pet file format", () => {
  it("reads back what it writes, and a pretty-printed file the same way", () => {
    for (const pets of [petsArbitrary, safePets]) {
      fc.assert(
        fc.property(pets, (pets) => {
          const expected = byId(pets).map(petToJson);
          expect(jsonOf(canonical(pets))).toEqual(expected);
          expect(jsonOf(stringifyJson(pets, 2))).toEqual(expected);
        }),
      );
    }
  });

  it("writes and reads back a known file byte for byte", () => {
    const pets: Pet[] = [
      { id: INT64_MIN, name: "Ann", categoryId: 1n },
      { id: 2n, name: 'Rex "the" Dog', categoryId: INT64_MAX, status: "sold" },
    ];
    const text = canonical(pets);
    expect(text).toBe(
      '[\n{"id":-9223372036854775808,"name":"Ann","categoryId":1},\n' +
        '{"id":2,"name":"Rex \\"the\\" Dog","categoryId":9223372036854775807,"status":"sold"}\n]\n',
    );
    expect(jsonOf(text)).toEqual(
      text
        .split("\n")
        .slice(1, 3)
        .map((line) => line.replace(/,$/, "")),
    );
    expect(canonical([])).toBe("[]\n");
  });

  // Read by JSON.parse or by the lossless parser, a file gives what the lossless
  // parser and the shared validation decide (as before JSON.parse was used).
  const emoji = "\u{1F600}";
  it.each([
    ['[{"id":1,"name":"A","categoryId":1.0}]', ['{"id":1,"name":"A","categoryId":1}']],
    ['[{"id":1,"name":"A","categoryId":1e3}]', ['{"id":1,"name":"A","categoryId":1000}']],
    ['[{"id":-0,"name":"A","categoryId":-0}]', ['{"id":0,"name":"A","categoryId":0}']],
    ['[{"id":1,"name":"A:B","categoryId":1}]', ['{"id":1,"name":"A:B","categoryId":1}']],
    [
      '[{"id":9007199254740993,"name":"A","categoryId":9007199254740992}]',
      ['{"id":9007199254740993,"name":"A","categoryId":9007199254740992}'],
    ],
    ['[{"id":1,"name":"200 emoji","categoryId":1}]', 1],
    ['[{"id":2,"name":"A","categoryId":1},{"id":1,"name":"B","categoryId":1}]', 2],
    ['[{"id":1.0,"name":"A","categoryId":1}]', /index 0 .*id must be an integer .*got 1\.$/],
    ['[{"id":1e3,"name":"A","categoryId":1}]', /id must be an integer .*got 1000\.$/],
    ['[{"id":1,"name":"A","categoryId":1.5}]', /categoryId must be an integer/],
    ['[{"id":0,"name":"A","categoryId":1},{"id":-0,"name":"B","categoryId":1}]', /both have id 0/],
    [
      '[{"id":1,"name":"A","name":"B","categoryId":1}]',
      /Duplicate key "name" at line 1, column 21/,
    ],
    ['[{"id":1,"name":"\\u003a","categoryId":1,"categoryId":2}]', /Duplicate key "categoryId"/],
    ['[{"id":1,"name":"\\u0022\\u0022","id":2,"categoryId":1}]', /Duplicate key "id"/],
    ['[{"id":9223372036854775808,"name":"A","categoryId":1}]', /id must be an integer/],
    ['[{"id":123456789012345678901,"name":"A","categoryId":1}]', /Integer of 21 digits/],
    ['[{"id":1,"name":"A","categoryId":1,"__proto__":{}}]', /__proto__ unknown field/],
    ['[{"id":1,"name":"A","categoryId":1,"status":null}]', /status must be one of/],
    ['[{"id":1,"name":"201 emoji","categoryId":1}]', /name must be a non-blank/],
    ['[{"id":1,"name":" ","categoryId":1}]', /name must be a non-blank/],
    ['[{"id":1,"name":"\u00a0\u2028","categoryId":1}]', /name must be a non-blank/],
    ['[{"id":1,"name":" A","categoryId":1}]', ['{"id":1,"name":" A","categoryId":1}']],
    ['[{"id":1,"name":"A","categoryId":"1"}]', /got the string "1"/],
    ["\ufeff[]", /not valid JSON: Unexpected '\ufeff'/],
  ] as const)("reads %s as before", (label, expected) => {
    const text = label
      .replace("200 emoji", emoji.repeat(200))
      .replace("201 emoji", emoji.repeat(201));
    if (typeof expected === "number") {
      expect(jsonOf(text)).toHaveLength(expected);
    } else if (Array.isArray(expected)) {
      expect(jsonOf(text)).toEqual(expected);
    } else {
      expect(() => parsePetFile(text, "pets.json")).toThrow(expected as RegExp);
    }
  });

  it("reads the write-ahead log up to a torn or garbled entry, after the mark of the ids used", () => {
    const a = petToJson({ id: 1n, name: "A", categoryId: 1n, status: "sold" });
    const b = petToJson({ id: 2n, name: "B", categoryId: 1n });
    const pets = (text: string) => parseLog(text).pets.map((p) => petToJson(p));
    expect(pets(`${a}\n${b}\n`)).toEqual([a, b]);
    expect(parseLog(`${a}\n${b}\n`).tornBytes).toBe(0);
    expect(pets(`${a}\n${b.slice(0, 10)}`)).toEqual([a]);
    expect(parseLog(`${a}\n${b.slice(0, 10)}`).tornBytes).toBe(10);
    expect(pets(`${a}\n\0\0\0\n${b}\n`)).toEqual([a]);
    expect(parseLog(`${a}\n\0\0\0\n${b}\n`).tornBytes).toBe(4 + b.length + 1);
    const marked = parseLog(`{"idsUsedUpTo":9223372036854775807}\n${a}\n`);
    expect(marked.idsUsedUpTo).toBe(INT64_MAX);
    expect(marked.pets.map((p) => petToJson(p))).toEqual([a]);
  });
});
