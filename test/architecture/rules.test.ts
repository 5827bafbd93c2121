/**
 * The dependency rules are lint rules (`npm run lint` runs ESLint and
 * scripts/check-dependencies.mjs): each one must really fail on the import it
 * forbids. A copy of src/ gets one forbidden import per rule, and the checker must
 * name every rule.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ESLint } from "eslint";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = new URL("../..", import.meta.url).pathname;
const CHECK = join(ROOT, "scripts/check-dependencies.mjs");

/** rule name -> [file of the copy, the import line added at its top] */
const VIOLATIONS: Record<string, [string, string]> = {
  "server-imports-only-schema-and-files": ["src/server/reply.ts", 'import "../errors.js";'],
  "files-is-a-leaf": ["src/files/file-kind.ts", 'import "../http-response.js";'],
  "only-serve-imports-server": ["src/commands/list.ts", 'import "../server/reply.js";'],
  "client-stays-below-the-commands": [
    "src/client/types.ts",
    'import "../output/output-format.js";',
  ],
  "profiles-below-the-client": ["src/profiles/key-text.ts", 'import "../client/headers.js";'],
  "bulk-below-the-commands": ["src/bulk/pacer.ts", 'import "../commands/version.js";'],
  "output-is-presentation-only": ["src/output/columns.ts", 'import "../profiles/key-text.js";'],
  "completion-reads-the-tree-only": ["src/completion/scripts.ts", 'import "../errors.js";'],
  "schema-is-a-leaf": ["src/schema/index.ts", 'import "../errors.js";'],
  // schema-is-a-leaf aside, a static cycle: io.ts -> commands/version.ts -> io.ts
  "no-module-cycle": ["src/commands/version.ts", 'import "../io.js";'],
};

async function checkDependencies(cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [CHECK], { cwd });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

async function copyOfTheTree(): Promise<string> {
  const copy = await mkdtemp(join(tmpdir(), "petstore-rules-"));
  for (const entry of ["src", ".dependency-cruiser.cjs", "tsconfig.json", "package.json"]) {
    await cp(join(ROOT, entry), join(copy, entry), { recursive: true });
  }
  return copy;
}

async function prepend(file: string, line: string): Promise<void> {
  await writeFile(file, `${line}\n${await readFile(file, "utf8")}`);
}

describe("dependency rules", () => {
  let copy: string;

  beforeAll(async () => {
    copy = await copyOfTheTree();
  });
  afterAll(() => rm(copy, { recursive: true, force: true }));

  it("hold on the real tree", async () => {
    const result = await checkDependencies(copy);
    expect(result.output).toContain("no dependency violations found");
    expect(result.code).toBe(0);
  });

  it("each fail on the import it forbids", async () => {
    for (const [file, line] of Object.values(VIOLATIONS)) await prepend(join(copy, file), line);
    // The other half of the cycle: io.ts imports commands/version.ts.
    await prepend(join(copy, "src/io.ts"), 'import "./commands/version.js";');
    // A cycle between folders: profiles -> output -> profiles (output-is-presentation-only
    // already adds output -> profiles).
    await prepend(join(copy, "src/profiles/resolve.ts"), 'import "../output/columns.js";');

    const result = await checkDependencies(copy);
    expect(result.code).not.toBe(0);
    for (const rule of [...Object.keys(VIOLATIONS), "no-folder-cycle"]) {
      expect(result.output, rule).toContain(`error ${rule}:`);
    }
  });
});

describe("the folder-cycle rule", () => {
  let copy: string;

  beforeEach(async () => {
    copy = await copyOfTheTree();
  });
  afterEach(() => rm(copy, { recursive: true, force: true }));

  it.each([
    // output-is-presentation-only aside: the two imports make a cycle of sibling folders.
    [
      "src/output → src/profiles → src/output",
      ["src/output/columns.ts", 'import "../profiles/key-text.js";'],
      ["src/profiles/resolve.ts", 'import "../output/columns.js";'],
    ],
    // Subfolders are folders too: admin/ already imports store/.
    [
      "src/server/admin → src/server/store → src/server/admin",
      ["src/server/store/edits.ts", 'import "../admin/clock.js";'],
    ],
  ])("fires on %s", async (cycle, ...imports: string[][]) => {
    for (const [file, line] of imports) await prepend(join(copy, file!), line!);

    const result = await checkDependencies(copy);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(`error no-folder-cycle: ${cycle}`);
  });

  it("counts a type import, and a file at the root of src/ as a node of its own", async () => {
    // The cycle issue 20 found: errors.ts -> client/ -> profiles/ -> errors.ts, where the
    // first step is a type import only and no module imports itself back.
    await prepend(
      join(copy, "src/errors.ts"),
      'import type { RetryEvent } from "./client/types.js";',
    );

    const result = await checkDependencies(copy);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(
      "error no-folder-cycle: src/client → src/errors.ts → src/client",
    );
    expect(result.output).toContain("src/errors.ts → src/client/types.ts");
    expect(result.output).not.toContain("error no-module-cycle");
  });
});

describe("process streams", () => {
  const eslint = new ESLint({ cwd: ROOT });
  const code = 'export function say(): void {\n  process.stdout.write("hi\\n");\n}\n';

  it("are touched only by io.ts and the entry points", async () => {
    const [inCommand] = await eslint.lintText(code, { filePath: join(ROOT, "src/commands/x.ts") });
    expect(inCommand!.messages.map((m) => m.ruleId)).toContain("no-restricted-properties");
    const stderr = code.replace("stdout", "stderr");
    const [inBulk] = await eslint.lintText(stderr, { filePath: join(ROOT, "src/bulk/x.ts") });
    expect(inBulk!.messages.map((m) => m.ruleId)).toContain("no-restricted-properties");
    for (const allowed of ["src/io.ts", "src/io/x.ts", "src/cli.ts", "src/server/x.ts"]) {
      const [result] = await eslint.lintText(code, { filePath: join(ROOT, allowed) });
      expect(result!.messages, allowed).toEqual([]);
    }
  });
});
