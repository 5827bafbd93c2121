/** Request bodies for fuzzing the fake: pets with odd values, huge numbers, deep nesting, invalid UTF-8. */
import fc from "fast-check";
import { MAX_BODY_BYTES } from "../../src/server/request-body.js";

const ONE_BYTE_TOO_MANY = Buffer.from(
  `{"name":"${"n".repeat(MAX_BODY_BYTES - 25)}","categoryId":1}`,
);
const MILLION_DIGITS = Buffer.from(`{"name":"Huge","categoryId":${"9".repeat(1_000_000)}}`);
const prototypeKeys = fc.constantFrom("__proto__", "constructor", "prototype");
const hugeNumber = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String),
  fc.bigInt({ min: -(2n ** 90n), max: 2n ** 90n }).map(String),
  fc.constantFrom("1e999999", "-0", "9223372036854775808", "-9223372036854775809", "1".repeat(21)),
  fc.integer({ min: 1_000, max: 50_000 }).map((n) => "7".repeat(n)),
);

/** Bodies as bytes: pets with odd values, huge numbers, deep nesting, invalid UTF-8. */
export const bodies = (millionDigitsWeight: number): fc.Arbitrary<Buffer> =>
  fc.oneof(
    {
      weight: 32,
      arbitrary: fc
        .record({
          name: fc.oneof(fc.string({ maxLength: 20 }), fc.constant("\u0000\ud800"), fc.integer()),
          categoryId: hugeNumber,
          extra: fc.option(prototypeKeys),
        })
        .map(({ name, categoryId, extra }) =>
          Buffer.from(
            `{"name":${JSON.stringify(name)},"categoryId":${categoryId}${extra === null ? "" : `,"${extra}":{"polluted":true}`}}`,
          ),
        ),
    },
    {
      // A 1 MiB body with a 1,000,000-digit integer, or a body one byte over 1 MiB.
      weight: millionDigitsWeight,
      arbitrary: fc.constantFrom(MILLION_DIGITS, MILLION_DIGITS, ONE_BYTE_TOO_MANY),
    },
    {
      weight: 16,
      arbitrary: fc
        .integer({ min: 200, max: 5_000 })
        .map((depth) => Buffer.from("[".repeat(depth) + "]".repeat(depth))),
    },
    {
      weight: 16,
      arbitrary: fc
        .integer({ min: 200, max: 5_000 })
        .map((depth) => Buffer.from('{"a":'.repeat(depth) + "1" + "}".repeat(depth))),
    },
    {
      weight: 16,
      arbitrary: fc.constantFrom(
        Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        Buffer.from([0xc3, 0x28]),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('{"name":"ok","categoryId":1,"status":"sold"}'),
        Buffer.from(""),
        Buffer.from("   "),
      ),
    },
    { weight: 8, arbitrary: fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)) },
  );
