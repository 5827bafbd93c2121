import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson } from "../../src/schema/json.js";
import { ensureBuilt } from "../server/cli-build.js";

const root = new URL("../../", import.meta.url).pathname;

/**
 * The `run: |` script of the named step inside the ci-recipe block of a document
 * (docs/serve.md: the plainest step, and one that drives the control plane).
 */
function stepScript(document: string, stepName: string): string {
  const text = readFileSync(join(root, document), "utf8");
  const block = text.split("<!-- ci-recipe:start -->")[1]?.split("<!-- ci-recipe:end -->")[0];
  if (!block) throw new Error(`${document} has no ci-recipe block`);
  const lines = block.split("\n");
  const at = lines.findIndex((line) => line.trim() === `- name: ${stepName}`);
  if (at === -1) throw new Error(`${document}'s recipe has no step ${stepName}`);
  const runLine = lines[at + 1]!;
  expect(runLine.trim()).toBe("run: |");
  const indent = runLine.indexOf("run:") + 2;
  const script: string[] = [];
  for (const line of lines.slice(at + 2)) {
    if (line.trim() !== "" && !line.startsWith(" ".repeat(indent))) break;
    script.push(line.slice(indent));
  }
  return script.join("\n").trim() + "\n";
}

describe("the CI recipes of docs/serve.md", () => {
  let work: string;
  beforeAll(async () => {
    await ensureBuilt();
    work = mkdtempSync(join(tmpdir(), "petstore-ci-recipe-"));
    mkdirSync(join(work, "bin"));
    // What `npm link` does: a `petstore` on the PATH pointing at bin/petstore.js.
    symlinkSync(join(root, "bin", "petstore.js"), join(work, "bin", "petstore"));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("runs as written: serve on port 0, wait, list, add, stop", () => {
    const script = stepScript("docs/serve.md", "Test against a local fake");
    const run = spawnSync("bash", ["-c", script], {
      cwd: work,
      env: {
        PATH: `${join(work, "bin")}:${process.env.PATH}`,
        HOME: work,
        PETSTORE_CONFIG_DIR: join(work, "config"),
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/error/i);
    const available = parseJson(readFileSync(join(work, "available.json"), "utf8"));
    expect(Array.isArray(available) && available.length).toBeGreaterThan(0);
    // The server flushed the added pet to its file on SIGTERM: 20 seeded + 1.
    const stored = parseJson(readFileSync(join(work, "ci-pets.json"), "utf8"));
    expect(Array.isArray(stored) && stored.length).toBe(21);
  });

  it("runs the control-plane step as written: reset between tests, assert on the journal", () => {
    const script = stepScript("docs/serve.md", "Test an app, resetting the fake between tests");
    const run = spawnSync("bash", ["-c", script], {
      cwd: work,
      env: {
        PATH: `${join(work, "bin")}:${process.env.PATH}`,
        HOME: work,
        PETSTORE_CONFIG_DIR: join(work, "config"),
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/error/i);
    const sent = JSON.parse(readFileSync(join(work, "sent.json"), "utf8")) as {
      requests: { body: string; plan: string }[];
    };
    expect(sent.requests).toHaveLength(1);
    expect(sent.requests[0]!.plan).toBe("enterprise");
    // Reset on SIGTERM too: the file holds the 5 seeded pets, not Rex.
    const stored = parseJson(readFileSync(join(work, "app-pets.json"), "utf8"));
    expect(Array.isArray(stored) && stored.length).toBe(5);
  });
});
