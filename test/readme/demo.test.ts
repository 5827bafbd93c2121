/**
 * `npm run demo` (scripts/demo.mjs, run here on a directory of the test's own)
 * ends with a hint that leads into the README's tour: the same key.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { ensureBuilt, REPO_ROOT } from "../server/cli-build.js";

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

it("closes with a hint that uses the tour's key", async () => {
  await ensureBuilt();
  const tourKey = /^petstore serve .*--key ([^:\s]+):/m.exec(README)?.[1];
  expect(tourKey).toBe("dev-key-1");
  const dir = mkdtempSync(join(tmpdir(), "petstore-demo-"));
  try {
    const { stderr, stdout } = await promisify(execFile)(
      process.execPath,
      [join(REPO_ROOT, "scripts", "demo.mjs")],
      // Its own HOME and config directory: a config of the person running the tests plays no part.
      {
        env: {
          PATH: process.env.PATH,
          PETSTORE_DEMO_DIR: dir,
          HOME: dir,
          PETSTORE_CONFIG_DIR: dir,
        },
        encoding: "utf8",
      },
    );
    expect(stdout).toMatch(/\tavailable\n/);
    const hint = stderr.trimEnd().split("\n").at(-1)!;
    expect(hint).toMatch(/^That was a local fake on .*\. Next: `.* serve .*`/);
    expect(/--key ([^:\s]+):/.exec(hint)?.[1]).toBe(tourKey);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
