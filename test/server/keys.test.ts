import { describe, expect, it } from "vitest";
import { Keyring, NO_KEY, UNKNOWN_KEY } from "../../src/server/auth.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KeyInput, KeyList, PLAN_LIMITS } from "../../src/server/keys.js";
import { planServe } from "../../src/server/serve-options.js";
import { DEFAULT_BAN_POLICY } from "../../src/server/serve-defaults.js";

/** The keys `serve` would start with, from its flags and environment. */
const serveKeys = (flags: { key?: string[]; keysFile?: string }, env: NodeJS.ProcessEnv = {}) =>
  planServe({ file: "unused.json", ...flags }, env).options.keys;

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
    expect(KeyInput.parse(spec)).toEqual(expected);
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
    ["abc:enterprise:100/10", /the per-day limit is below the per-minute limit/],
    ["abc:free:1/2:x", /expected key\[:plan\[:perMinute\/perDay\]\]/],
  ])("rejects %j", (spec, message) => {
    expect(() => serveKeys({ key: [spec] })).toThrow(new RegExp(`^--key: ${message.source}`));
  });

  it("never repeats the key in a message", () => {
    expect(() => serveKeys({ key: ["secret-value:gold"] })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("secret-value") as string }),
    );
  });

  it("reads a keys file with comments and names the line of an error", () => {
    const dir = mkdtempSync(join(tmpdir(), "petstore-keys-"));
    try {
      const file = join(dir, "keys.txt");
      writeFileSync(
        file,
        "# team keys\nalpha:pro\n\n  beta   # the CI key\ngamma:enterprise:5/10\n",
      );
      expect(serveKeys({ keysFile: file }).map((k) => `${k.key}:${k.plan}`)).toEqual([
        "alpha:pro",
        "beta:free",
        "gamma:enterprise",
      ]);
      writeFileSync(file, "alpha\nbeta:gold\n");
      expect(() => serveKeys({ keysFile: file })).toThrow(
        new RegExp(`^${file.replace(/[.\\/]/g, "\\$&")} line 2: plan must be one of`),
      );
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("reads a comma-separated list when no flag gives a key", () => {
    const env = { PETSTORE_SERVE_KEYS: " a:pro, b ,," };
    expect(serveKeys({}, env).map((k) => k.key)).toEqual(["a", "b"]);
    expect(serveKeys({ key: ["c"] }, env).map((k) => k.key)).toEqual(["c"]);
    expect(() => serveKeys({}, { PETSTORE_SERVE_KEYS: "a,b:gold" })).toThrow(
      /^PETSTORE_SERVE_KEYS: plan must be one of/,
    );
  });

  it("merges repeats and refuses a key with two plans", () => {
    expect(KeyList.parse(["a", "a:free", "b"])).toHaveLength(2);
    expect(KeyList.safeParse(["a", "a:pro"]).error?.issues[0]?.message).toMatch(/different plans/);
  });

  it("generates distinct free keys that parse back", () => {
    const [first] = KeyList.parse([]);
    const [second] = KeyList.parse([]);
    expect(first!.key).not.toBe(second!.key);
    expect(KeyInput.parse(first!.key)).toEqual(first);
  });
});

describe("the keyring", () => {
  const keyring = new Keyring([KeyInput.parse("k-123456:pro")], DEFAULT_BAN_POLICY);

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

  it("identifies a connection's next header afresh once the header or the keys change", () => {
    const ring = new Keyring([KeyInput.parse("k-123456:pro")], DEFAULT_BAN_POLICY);
    const [connection, other] = [{}, {}];
    expect(ring.identify("Bearer k-777777", connection)).toBe(UNKNOWN_KEY);
    ring.add(KeyInput.parse("k-777777:free"));
    expect(ring.identify("Bearer k-777777", connection)).toMatchObject({ plan: "free" });
    expect(ring.identify("Bearer k-123456", connection)).toMatchObject({ plan: "pro" });
    expect(ring.identify("Bearer k-123456", other)).toMatchObject({ plan: "pro" });
    ring.remove("k-123456");
    expect(ring.identify("Bearer k-123456", connection)).toBe(UNKNOWN_KEY);
    expect(ring.identify("Bearer k-123456", other)).toBe(UNKNOWN_KEY);
    expect(ring.identify(undefined, connection)).toBe(NO_KEY);
    expect(ring.identify("Bearer k-777777", connection)).toMatchObject({ plan: "free" });
    // The same length, one character apart.
    expect(ring.identify("Bearer k-777778", connection)).toBe(UNKNOWN_KEY);
    expect(ring.identify("Bearer k-777777", connection)).toMatchObject({ plan: "free" });
  });
});
