/**
 * The package loads from CommonJS (`require("petstore-cli")`, as Jest without ESM
 * does), resolved through package.json's exports as an installed package is:
 * node_modules/petstore-cli links to the repository, whose dist/ the global setup built.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../server/cli-build.js";

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "petstore-require-"));
  mkdirSync(join(work, "node_modules"));
  symlinkSync(REPO_ROOT, join(work, "node_modules", "petstore-cli"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: work, encoding: "utf8", timeout: 30_000 });
}

describe('require("petstore-cli")', () => {
  it("gives the library in a CommonJS program: a file-backed fake, its control plane, the client", () => {
    const script = `
      const assert = require("node:assert");
      const path = require("node:path");
      const { startServer, createClient, DEFAULT_RETRY_POLICY, PetstoreError } = require("petstore-cli");
      assert.strictEqual(require.resolve("petstore-cli"), ${JSON.stringify(join(REPO_ROOT, "dist", "index.cjs"))});
      assert.strictEqual(typeof PetstoreError, "function");
      (async () => {
        const server = await startServer({ file: path.join(${JSON.stringify(work)}, "pets.json"), seed: 2, keys: ["k"], quiet: true });
        const client = createClient({ baseUrl: server.url, apiKey: "k", timeoutMs: 5000, retry: DEFAULT_RETRY_POLICY });
        const made = await client.createPet({ name: "Cjs", categoryId: 5n });
        const posted = server.requests({ method: "POST" });
        await server.reset();
        console.log(JSON.stringify({ raw: made.raw, posted: posted.length, after: server.store.size }));
        await server.close();
      })().catch((error) => { console.error(error); process.exit(1); });
    `;
    const out = JSON.parse(node(["-e", script])) as Record<string, unknown>;
    expect(out).toEqual({
      raw: '{"id":3,"name":"Cjs","categoryId":5,"status":"available"}',
      posted: 1,
      after: 2,
    });
  });

  it("and import still gives the ES module", () => {
    const out = node([
      "--input-type=module",
      "-e",
      'const m = await import("petstore-cli"); console.log(import.meta.resolve("petstore-cli"), typeof m.startServer);',
    ]);
    expect(out.trim()).toBe(`file://${join(REPO_ROOT, "dist", "index.js")} function`);
  });
});
