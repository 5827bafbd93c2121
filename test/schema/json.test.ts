import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { JsonSyntaxError, parseJson, stringifyJson } from "../../src/schema/json.js";

describe("parseJson", () => {
  it("keeps int64 values above 2^53 exact as bigint", () => {
    const value = parseJson('{"categoryId": 9223372036854775807, "x": -9223372036854775808}');
    expect(value).toEqual({ categoryId: 9223372036854775807n, x: -9223372036854775808n });
  });

  it("reads fractions and exponents as numbers, integers as bigint", () => {
    expect(parseJson("[1, 1.5, 1e3, -0, 0]")).toEqual([1n, 1.5, 1000, -0n, 0n]);
  });

  it("builds objects without a prototype so __proto__ is plain data", () => {
    const value = parseJson('{"__proto__": {"polluted": true}, "constructor": 1}') as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(value)).toBeNull();
    expect(Object.keys(value)).toEqual(["__proto__", "constructor"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("decodes escapes and unicode", () => {
    expect(parseJson('"a\\n\\t\\"\\\\\\/\\u00e9\\ud83d\\ude00"')).toBe('a\n\t"\\/é😀');
  });

  it.each([
    ["", "Unexpected end of input: the document is empty at line 1, column 1"],
    ['{"a":1,}', "Unexpected '}', expected a string key in double quotes at line 1, column 8"],
    ['{\n  "a": 1\n  "b": 2\n}', "Unexpected '\"', expected ',' or '}' at line 3, column 3"],
    ["[1, 2", "Unexpected end of input, expected ',' or ']' at line 1, column 6"],
    ['{"a":1,"a":2}', 'Duplicate key "a" at line 1, column 8'],
    ["01", "Leading zeros are not allowed in numbers at line 1, column 1"],
    ['"abc', "Unterminated string at line 1, column 1"],
    ["[1] x", "Unexpected 'x' after the end of the JSON value at line 1, column 5"],
    ["tru", "Unexpected 't', expected a JSON value at line 1, column 1"],
    ["1.", "Unexpected end of input, expected a digit after the decimal point at line 1, column 3"],
    ['"a\u0001"', "Unexpected control character U+0001 in string at line 1, column 3"],
  ])("rejects %j with a located message", (text, message) => {
    expect(() => parseJson(text)).toThrow(JsonSyntaxError);
    expect(() => parseJson(text)).toThrow(message);
  });

  it("shows at most 60 characters of a duplicate key", () => {
    const key = "k".repeat(1000);
    expect(() => parseJson(`{"${key}":1,"${key}":2}`)).toThrow(
      `Duplicate key "${"k".repeat(57)}"... at line 1, column 1007`,
    );
  });

  it("reads integer literals of up to 20 digits, so one past int64 is still a bigint", () => {
    expect(parseJson('{"a": 92233720368547758070, "b": -99999999999999999999}')).toEqual({
      a: 92233720368547758070n,
      b: -99999999999999999999n,
    });
  });

  it.each([
    ['{"categoryId": 123456789012345678901}', '"categoryId"', 1, 16],
    ['{"a": [1,\n -1000000000000000000000]}', "", 2, 2],
    ['{"a": {"b": 1}, "c": 1000000000000000000000}', '"c"', 1, 22],
  ])("refuses the over-long integer in %j, naming its key and place", (text, key, line, column) => {
    let error: unknown;
    try {
      parseJson(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(JsonSyntaxError);
    const syntax = error as JsonSyntaxError;
    expect(syntax.limit).toBe(true);
    expect([syntax.line, syntax.column]).toEqual([line, column]);
    expect(syntax.message).toMatch(/^Integer of 2[12] digits/);
    expect(syntax.message).toContain(key === "" ? "in an array" : `for ${key}`);
    expect(syntax.message).toContain("at most 20 digits");
  });

  it("never hands an over-long integer literal to BigInt", () => {
    const seen: number[] = [];
    const real = globalThis.BigInt;
    const spy = Object.assign(
      (value: string | number | bigint | boolean) => {
        if (typeof value === "string") seen.push(value.length);
        return real(value);
      },
      { asIntN: real.asIntN, asUintN: real.asUintN },
    );
    globalThis.BigInt = spy as unknown as BigIntConstructor;
    const digits = "7".repeat(1_000_000);
    try {
      expect(() => parseJson(`{"categoryId":${digits}}`)).toThrow(
        /^Integer of 1000000 digits for "categoryId" .* at line 1, column 15$/,
      );
      expect(() => parseJson(`[-${digits}]`)).toThrow(JsonSyntaxError);
      expect(parseJson(`[${"9".repeat(20)}]`)).toEqual([99999999999999999999n]);
    } finally {
      globalThis.BigInt = real;
    }
    expect(seen).toEqual([20]);
  });

  it("still reads long fractions and exponents as numbers", () => {
    expect(parseJson(`[${"1".repeat(30)}.5, ${"2".repeat(25)}e0]`)).toEqual([
      Number(`${"1".repeat(30)}.5`),
      Number("2".repeat(25)),
    ]);
  });

  it("treats integer literals by their length alone: 20 digits are read, 21 refused", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 40 }).chain((length) =>
          fc.string({
            unit: fc.constantFrom(..."0123456789"),
            minLength: length,
            maxLength: length,
          }),
        ),
        (negative, lead, rest) => {
          const literal = (negative ? "-" : "") + String(lead) + rest;
          if (rest.length + 1 <= 20) expect(parseJson(literal)).toBe(BigInt(literal));
          else expect(() => parseJson(literal)).toThrow(/at most 20 digits/);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("limits nesting instead of overflowing the stack", () => {
    expect(() => parseJson("[".repeat(100_000))).toThrow(/Nesting deeper than 256/);
  });

  it("agrees with JSON.parse on any JSON without big numbers", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        // Doubles from 1e20 up to 1e21 are written as 21-digit integers, refused above.
        fc.pre(!/(^|[^.\d])\d{21}/.test(text.replace(/"(?:[^"\\]|\\.)*"/g, '""')));
        const ours = parseJson(text);
        const normalised = JSON.parse(
          stringifyJson(ours, 0).replace(/-0(?=[,\]}]|$)/g, "0"),
        ) as unknown;
        expect(normalised).toEqual(JSON.parse(text.replace(/-0(?=[,\]}]|$)/g, "0")));
      }),
      { numRuns: 300 },
    );
  });

  it("rejects whatever JSON.parse rejects", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        let native = true;
        try {
          JSON.parse(text);
        } catch {
          native = false;
        }
        let ours = true;
        try {
          parseJson(text);
        } catch (error) {
          expect(error).toBeInstanceOf(JsonSyntaxError);
          ours = false;
        }
        if (!native) expect(ours).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});

describe("parseJson at sizes past a pattern's stack", () => {
  // 10 million escapes alternating with plain text: one backtracking frame each
  // overflowed a single pattern for the whole literal (a hand-edited data file has no size limit).
  it("reads a string of 10 million escapes, and still names a bad escape at its end", () => {
    const inner = "a\\n".repeat(10_000_000);
    const value = parseJson(`["${inner}"]`) as string[];
    expect(value[0]).toHaveLength(20_000_000);
    expect(value[0]!.endsWith("a\n")).toBe(true);
    expect(() => parseJson(`["${inner}\\x"]`)).toThrow(/Invalid escape \\x in string/);
  });
});

describe("stringifyJson", () => {
  it("writes bigints as exact digits", () => {
    expect(stringifyJson({ id: 9223372036854775807n, ok: true, n: null })).toBe(
      '{"id":9223372036854775807,"ok":true,"n":null}',
    );
  });

  it("round-trips through parseJson", () => {
    const text = '{"a":[1,2.5,"x",{"b":-12345678901234567890}],"c":{}}';
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it("indents like JSON.stringify", () => {
    const value = { a: [1, { b: "c" }], d: [] as number[], e: {} };
    expect(stringifyJson(value, 2)).toBe(JSON.stringify(value, null, 2));
  });
});
