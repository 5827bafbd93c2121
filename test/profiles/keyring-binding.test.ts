/** Where the standalone binary keeps its keyring binding between runs: only a directory no one else may write to. */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { keptIn } from "../../src/profiles/keyring-binding.js";

const root = mkdtempSync(join(tmpdir(), "petstore-runtime-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dir(name: string, mode: number): string {
  const path = join(root, name);
  mkdirSync(path);
  chmodSync(path, mode);
  return path;
}

it("keeps it in $XDG_RUNTIME_DIR when that is this user's own directory", () => {
  const own = dir("own", 0o700);
  expect(keptIn({ XDG_RUNTIME_DIR: own })).toBe(own);
});

it("does not keep it where another user could put a file of theirs", () => {
  const shared = dir("shared", 0o777);
  const others = dir("others", 0o700);
  chownSync(others, 65534, 65534); // tests run as root: nobody's directory
  const link = join(root, "link");
  symlinkSync(dir("target", 0o700), link);
  for (const path of [shared, others, link, join(root, "missing"), ""]) {
    expect(keptIn({ XDG_RUNTIME_DIR: path })).toBeUndefined();
  }
  expect(keptIn({})).toBeUndefined();
});
