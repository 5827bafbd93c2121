/**
 * `state.json` has no lock: writers that overlap (notices shown by runs, or by
 * calls, at the same moment) may lose an entry, never leave a damaged file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { rememberShown } from "../../src/profiles/state-file.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "petstore-state-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

it("leaves whole JSON and no temporary file when 20 writes overlap", async () => {
  const env = { PETSTORE_CONFIG_DIR: dir };
  const now = Date.now();
  const failures = await Promise.all(
    Array.from({ length: 20 }, (_, n) => rememberShown(env, "sunset", `p${n}`, now, 0)),
  );
  expect(failures).toEqual(Array.from({ length: 20 }, () => undefined));
  const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8"));
  expect(Object.keys(state.notices.sunset).length).toBeGreaterThan(0);
  expect(readdirSync(dir)).toEqual(["state.json"]);
});
