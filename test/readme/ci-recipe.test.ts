import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync, writeFileSync } from "node:fs";
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

  /** Runs the step of docs/serve.md under `heading` as written, with the packed CLI on the PATH. */
  function runStep(heading: string) {
    return spawnSync("bash", ["-c", stepScript("docs/serve.md", heading)], {
      cwd: work,
      env: {
        PATH: `${join(work, "bin")}:${process.env.PATH}`,
        HOME: work,
        PETSTORE_CONFIG_DIR: join(work, "config"),
      },
      encoding: "utf8",
      timeout: 60_000,
    });
  }

  it("runs as written: serve on port 0, wait, list, add, stop", () => {
    const run = runStep("Test against a local fake");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/error/i);
    const available = parseJson(readFileSync(join(work, "available.json"), "utf8"));
    expect(Array.isArray(available) && available.length).toBeGreaterThan(0);
    // The server flushed the added pet to its file on SIGTERM: 20 seeded + 1.
    const stored = parseJson(readFileSync(join(work, "ci-pets.json"), "utf8"));
    expect(Array.isArray(stored) && stored.length).toBe(21);
  });

  it("runs the control-plane step as written: reset between tests, assert on the journal", () => {
    const run = runStep("Test an app, resetting the fake between tests");
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

  /** The verdict step as written, with `app` as the app's suite (./app-tests.sh). */
  function verdictStep(app: string) {
    writeFileSync(join(work, "app-tests.sh"), app, { mode: 0o755 });
    for (const file of ["verdict-pets.json", "verdict.env"])
      rmSync(join(work, file), { force: true });
    return runStep("Check the app against the contract");
  }

  it("runs the verdict step as written: it fails a naive app, each violation in words", () => {
    const run = verdictStep(
      [
        "#!/bin/sh",
        "# Looks a pet up by id (removed at the sunset), and retries a 429 at once.",
        'auth="Authorization: Bearer $PETSTORE_API_KEY"',
        'curl -s -o /dev/null -H "$auth" "$PETSTORE_BASE_URL/pets/1"',
        'for _ in $(seq 130); do curl -s -o /dev/null -H "$auth" "$PETSTORE_BASE_URL/pets"; done',
        "",
      ].join("\n"),
    );
    expect(run.status, run.stderr).toBe(12);
    expect(run.stdout).toMatch(/^violation removed-endpoint: GET \/v1\/pets\/1 at .*, key …: /m);
    // 130 requests of a free key (60 a minute) cross at most one window's reset.
    expect(run.stdout.match(/^violation early-retry: /gm)?.length).toBeGreaterThan(3);
    expect(run.stderr).toMatch(/error: the app under test broke the contract: [0-9]+ violations/);
  });

  it("runs the verdict step as written: our own client passes", () => {
    const run = verdictStep(
      [
        "#!/bin/sh",
        "set -eu",
        "petstore list --status available -q > /dev/null",
        'petstore add --name "Rex" --category-id 1 -q > /dev/null',
        "petstore list --limit 100 -q | grep -q .",
        "",
      ].join("\n"),
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe("pass: no violations, 0 warnings\n");
  });
});
