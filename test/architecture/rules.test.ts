/**
 * The dependency rules are lint rules (`npm run lint` runs dependency-cruiser
 * and ESLint): each one must really fail on the import it forbids. A copy of
 * src/ gets one forbidden import per rule, and the checker must name every rule.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ESLint } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = new URL("../..", import.meta.url).pathname;
const DEPCRUISE = join(ROOT, "node_modules/.bin/depcruise");

/** rule name -> [file of the copy, the import line added at its top] */
const VIOLATIONS: Record<string, [string, string]> = {
  "server-imports-only-schema": ["src/server/reply.ts", 'import "../errors.js";'],
  "only-serve-imports-server": ["src/commands/list.ts", 'import "../server/reply.js";'],
  "client-stays-below-the-commands": ["src/client/types.ts", 'import "../output/format.js";'],
  "profiles-below-the-client": ["src/profiles/redact-key.ts", 'import "../client/http-date.js";'],
  "bulk-below-the-commands": ["src/bulk/gate.ts", 'import "../commands/version.js";'],
  "output-is-presentation-only": ["src/output/csv.ts", 'import "../profiles/redact-key.js";'],
  "completion-reads-the-tree-only": ["src/completion/shells.ts", 'import "../errors.js";'],
  "schema-is-a-leaf": ["src/schema/index.ts", 'import "../errors.js";'],
  // schema-is-a-leaf aside, a static cycle: io.ts -> commands/version.ts -> io.ts
  "no-module-cycle": ["src/commands/version.ts", 'import "../io.js";'],
};

async function depcruise(cwd: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(DEPCRUISE, ["src", "--config", ".dependency-cruiser.cjs"], {
      cwd,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("dependency rules", () => {
  let copy: string;

  beforeAll(async () => {
    copy = await mkdtemp(join(tmpdir(), "petstore-rules-"));
    for (const entry of ["src", ".dependency-cruiser.cjs", "tsconfig.json", "package.json"]) {
      await cp(join(ROOT, entry), join(copy, entry), { recursive: true });
    }
  });
  afterAll(() => rm(copy, { recursive: true, force: true }));

  it("hold on the real tree", async () => {
    const result = await depcruise(copy);
    expect(result.output).toContain("no dependency violations found");
    expect(result.code).toBe(0);
  });

  it("each fail on the import it forbids", async () => {
    const io = join(copy, "src/io.ts");
    const ioText = await readFile(io, "utf8");
    for (const [file, line] of Object.values(VIOLATIONS)) {
      const path = join(copy, file);
      await writeFile(path, `${line}\n${await readFile(path, "utf8")}`);
    }
    // The other half of the cycle: io.ts imports commands/version.ts.
    await writeFile(io, `import "./commands/version.js";\n${ioText}`);
    // A cycle between folders: profiles -> output -> profiles (output-is-presentation-only
    // already adds output -> profiles).
    const config = join(copy, "src/profiles/resolve.ts");
    await writeFile(config, `import "../output/columns.js";\n${await readFile(config, "utf8")}`);

    const result = await depcruise(copy);
    expect(result.code).not.toBe(0);
    for (const rule of [...Object.keys(VIOLATIONS), "no-folder-cycle"]) {
      expect(result.output, rule).toContain(`error ${rule}:`);
    }
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
