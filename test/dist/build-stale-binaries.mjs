// Builds, in one run of the build script, each standalone binary named in argv that
// is missing or older than the CLI bundle or the build scripts (`npm test` rebuilds
// the bundle first, so once per test run). Test files run it under one lock
// (test/dist/binaries.ts), so two never build into dist/sea/ at once and the second
// finds the binaries the first built.
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { TARGETS } from "../../scripts/binary-targets.mjs";

const root = new URL("../..", import.meta.url).pathname;
const inputs = [
  join(root, "dist", "cli.cjs"),
  ...["build-binary.mjs", "binary-targets.mjs", "node-runtimes.mjs", "wine.mjs"].map((name) =>
    join(root, "scripts", name),
  ),
];
const newest = Math.max(...inputs.map((file) => statSync(file).mtimeMs));
const stale = TARGETS.filter((target) => {
  const output = join(root, "dist", target.output);
  return (
    process.argv.includes(target.name) && (!existsSync(output) || statSync(output).mtimeMs < newest)
  );
});
if (stale.length > 0) {
  execFileSync(
    process.execPath,
    [join(root, "scripts", "build-binary.mjs"), ...stale.map((target) => target.name)],
    { cwd: root, stdio: ["ignore", "ignore", "inherit"] },
  );
}
