import { describe, expect, it } from "vitest";
import { Keyring, NO_KEY, UNKNOWN_KEY } from "../../src/server/auth.js";
import {
  KeyList,
  PLAN_LIMITS,
  generateKey,
  parseKeySpec,
  parseKeysFile,
  parseKeysList,
} from "../../src/server/keys.js";
import { DEFAULT_BAN_POLICY } from "../../src/server/serve-defaults.js";

describe("key specs", () => {
  it.each([
    ["abc", { key: "abc", plan: "free", limits: PLAN_LIMITS.free }],
    ["abc:", { key: "abc", plan: "free", limits: PLAN_LIMITS.free }],
    ["abc:pro", { key: "abc", plan: "pro", limits: { perMinute: 300, perDay: 10_000 } }],
    [
      "abc:Business",
      { key: "abc", plan: "business", limits: { perMinute: 1000, perDay: 100_000 } },
    ],
    ["abc:enterprise", { key: "abc", plan: "enterprise", limits: null }],
    [
      "a.b-c_d~e+f/g==:enterprise:600/20000",
      {
        key: "a.b-c_d~e+f/g==",
        plan: "enterprise",
        limits: { perMinute: 600, perDay: 20_000 },
      },
    ],
  ])("reads %j", (spec, expected) => {
    expect(parseKeySpec(spec)).toEqual(expected);
  });

  it.each([
    ["", /key must be 1 to 512 of the characters/],
    [":pro", /key must be 1 to 512 of the characters/],
    ["a b", /key must be 1 to 512 of the characters/],
    ["ab,c", /key must be 1 to 512 of the characters/],
    ["abc:gold", /plan must be one of free, pro, business, enterprise; got "gold"/],
    [
      "abc:pro:10/100",
      /custom limits are for the enterprise plan only; pro has 300\/min and 10000\/day/,
    ],
    ["abc:enterprise:10", /limits must be perMinute\/perDay/],
    ["abc:enterprise:0/10", /perMinute must be an integer from 1 to 999999999; got 0/],
    ["abc:enterprise:100/10", /per-day limit is below the per-minute limit/],
    ["abc:free:1/2:x", /expected key\[:plan\[:perMinute\/perDay\]\]/],
  ])("rejects %j", (spec, message) => {
    expect(() => parseKeySpec(spec, "--key")).toThrow(message);
  });

  it("never repeats the key in a message", () => {
    expect(() => parseKeySpec("secret-value:gold")).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("secret-value") as string }),
    );
  });

  it("reads a keys file with comments and names the line of an error", () => {
    const text = "# team keys\nalpha:pro\n\n  beta   # the CI key\ngamma:enterprise:5/10\n";
    expect(parseKeysFile(text, "keys.txt").map((k) => `${k.key}:${k.plan}`)).toEqual([
      "alpha:pro",
      "beta:free",
      "gamma:enterprise",
    ]);
    expect(() => parseKeysFile("alpha\nbeta:gold\n", "keys.txt")).toThrow(
      /^keys\.txt line 2: plan must be one of/,
    );
  });

  it("reads a comma-separated list", () => {
    expect(parseKeysList(" a:pro, b ,,", "PETSTORE_SERVE_KEYS").map((k) => k.key)).toEqual([
      "a",
      "b",
    ]);
  });

  it("merges repeats and refuses a key with two plans", () => {
    expect(KeyList.parse(["a", "a:free", "b"])).toHaveLength(2);
    expect(KeyList.safeParse(["a", "a:pro"]).error?.issues[0]?.message).toMatch(/different plans/);
  });

  it("generates distinct free keys that parse back", () => {
    const first = generateKey();
    const second = generateKey();
    expect(first.key).not.toBe(second.key);
    expect(parseKeySpec(first.key)).toEqual(first);
  });
});

describe("the keyring", () => {
  const keyring = new Keyring([parseKeySpec("k-123456:pro")], DEFAULT_BAN_POLICY);

  it.each([
    [undefined, NO_KEY],
    ["Basic k-123456", NO_KEY],
    ["Bearerk-123456", NO_KEY],
    ["Bearer", UNKNOWN_KEY],
    ["Bearer ", UNKNOWN_KEY],
    ["Bearer k-123457", UNKNOWN_KEY],
    ["Bearer k-12345", UNKNOWN_KEY],
    ["Bearer K-123456", UNKNOWN_KEY],
  ])("identifies %j as %s", (header, expected) => {
    expect(keyring.identify(header)).toBe(expected);
  });

  it.each(["Bearer k-123456", "bearer k-123456", "BEARER   k-123456"])("accepts %j", (header) => {
    expect(keyring.identify(header)).toMatchObject({ plan: "pro" });
  });
});
