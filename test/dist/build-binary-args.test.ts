import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../server/cli-build.js";
import { HANG_MS } from "../limits.js";

const SCRIPT = join(REPO_ROOT, "scripts", "build-binary.mjs");

it("refuses a target it does not know, naming the ones it has, before building anything", () => {
  const result = spawnSync(process.execPath, [SCRIPT, "linux-x64", "darwin-arm64"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: HANG_MS,
  });
  expect(result.status).toBe(2);
  expect(result.stderr).toBe(
    "build-binary: no target darwin-arm64; the targets are linux-x64, linux-arm64, win-x64; " +
      "there is no macOS binary (it needs an Apple signature no tool here can make): the npm package runs on macOS\n",
  );
});
