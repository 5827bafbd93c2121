/**
 * Error identity across bundles (src/schema/kinded-error.ts). Each bundle in dist/
 * carries its own copy of the modules it includes, so an error class exists once
 * per bundle: an error made by one copy must be `instanceof` the same class, and
 * its parents, in every other copy, and no other class. Checked on the library's
 * two builds (a program may both import and require petstore-cli), through the
 * CLI (cli.cjs reports what dist/bulk.cjs throws), and for every error class
 * the build puts in more than one bundle.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startFake, tempDir } from "../e2e/harness.js";
import { ensureBuilt, REPO_ROOT } from "../server/cli-build.js";

const DIST = join(REPO_ROOT, "dist");

let home: ReturnType<typeof tempDir>;
beforeAll(async () => {
  await ensureBuilt();
  home = tempDir();
});
afterAll(() => home?.remove());

/** Every error class the library exports, with the classes it is an instance of. */
const INSTANCE_OF: Record<string, string[]> = {
  PetstoreError: ["PetstoreError"],
  DeclinedError: ["DeclinedError", "PetstoreError"],
  UsageError: ["PetstoreError", "UsageError"],
  HttpError: ["HttpError", "PetstoreError"],
  AuthError: ["AuthError", "HttpError", "PetstoreError"],
  NotFoundError: ["HttpError", "NotFoundError", "PetstoreError"],
  RateLimitError: ["HttpError", "PetstoreError", "RateLimitError"],
  NetworkError: ["NetworkError", "PetstoreError"],
  TimeoutError: ["NetworkError", "PetstoreError", "TimeoutError"],
  TlsError: ["NetworkError", "PetstoreError", "TlsError"],
  HostNotFoundError: ["HostNotFoundError", "NetworkError", "PetstoreError"],
  ProxyError: ["PetstoreError", "ProxyError"],
  OutcomeUnknownError: ["OutcomeUnknownError", "PetstoreError"],
  JsonSyntaxError: ["JsonSyntaxError"],
};

/**
 * Loads dist/index.js and dist/index.cjs in one process; for each exported error
 * class, an object of it from one build, and which classes of the other build
 * it is `instanceof`. Also a real NotFoundError made by the ES module build.
 */
const CROSS_BUILDS = `
  import { createRequire } from "node:module";
  const cjs = createRequire(import.meta.url)(${JSON.stringify(join(DIST, "index.cjs"))});
  const esm = await import(${JSON.stringify(pathToFileURL(join(DIST, "index.js")).href)});
  const names = Object.keys(esm).filter((name) => esm[name]?.prototype instanceof Error);
  const classesOf = (error, of) => names.filter((name) => error instanceof of[name]).sort();
  const matrix = (from, to) =>
    Object.fromEntries(names.map((name) => [name, classesOf(Object.create(from[name].prototype), to)]));
  const made = new esm.NotFoundError("no pet 7", 4, 404, { method: "GET", url: "/v1/pets/7" }, undefined);
  console.log(JSON.stringify({
    esmInCjs: matrix(esm, cjs),
    cjsInEsm: matrix(cjs, esm),
    made: {
      classes: classesOf(made, cjs),
      error: made instanceof Error,
      name: made.name,
      text: String(made),
      stack: made.stack.split("\\n")[0],
      status: made.status,
      exitCode: made.exitCode,
    },
    notErrors: [{}, null, 7, new Error("plain")].map((value) => value instanceof cjs.PetstoreError),
  }));
`;

describe("an error made by one bundle", () => {
  it("is an instance of its class and its parents in another bundle, and of no other class", () => {
    const out = JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "-e", CROSS_BUILDS], {
        cwd: home.path,
        encoding: "utf8",
      }),
    ) as Record<string, unknown>;
    expect(out.esmInCjs).toEqual(INSTANCE_OF);
    expect(out.cjsInEsm).toEqual(INSTANCE_OF);
    expect(out.made).toEqual({
      classes: ["HttpError", "NotFoundError", "PetstoreError"],
      error: true,
      name: "NotFoundError",
      text: "NotFoundError: no pet 7",
      stack: "NotFoundError: no pet 7",
      status: 404,
      exitCode: 4,
    });
    expect(out.notErrors).toEqual([false, false, false, false]);
  });

  it("thrown by dist/bulk.cjs gets its exit code and hint from dist/cli.cjs", async () => {
    const rows = join(home.path, "rows.ndjson");
    writeFileSync(rows, '{"name":"Rex","categoryId":1}\n');
    const env = { PETSTORE_CONFIG_DIR: home.path };
    const usage = await runCli(["add", "--from", rows, "--output", "csv"], { env });
    expect(usage).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "error: --from writes each row's outcome as it is known, one NDJSON line per row; --output csv does not apply\n" +
        "hint: use --json (or --output ndjson) for a line per row, or -q for the ids of the added rows\n",
    });

    const fake = await startFake();
    try {
      const rejected = await runCli(["add", "--from", rows], {
        env: { ...env, PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: "not-a-key-the-fake-knows" },
      });
      expect(rejected.code).toBe(3);
      expect(rejected.stderr).toMatch(/^error: the service did not accept the API key: .+$/m);
      expect(rejected.stderr).toMatch(/^hint: run `petstore auth login`/m);
    } finally {
      await fake.close();
    }
  });
});

interface ErrorClass {
  name: string;
  parent: string;
  /** Declares its own kind. */
  kind: boolean;
  file: string;
  ancestors: string[];
}

/** The error classes declared in src/ (`class X extends Y`, exported or not). */
function errorClasses(): ErrorClass[] {
  const declared: Omit<ErrorClass, "ancestors">[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) {
        const text = readFileSync(path, "utf8");
        const pattern = /^(?:export )?class (\w+) extends (\w+) \{(?:\}|([\s\S]*?)^\})/gm;
        for (const [, name, parent, body] of text.matchAll(pattern)) {
          const kind = new RegExp(`^  static (override )?\\[ERROR_KIND\\] = "${name}";$`, "m").test(
            body ?? "",
          );
          declared.push({ name: name!, parent: parent!, kind, file: relative(REPO_ROOT, path) });
        }
      }
    }
  };
  walk(join(REPO_ROOT, "src"));
  const parents = new Map(declared.map(({ name, parent }) => [name, parent]));
  const ancestors = (name: string): string[] => {
    const parent = parents.get(name);
    return parent === undefined ? [] : [parent, ...ancestors(parent)];
  };
  return declared
    .map((declaration) => ({ ...declaration, ancestors: ancestors(declaration.name) }))
    .filter(({ ancestors }) => ancestors.includes("Error"));
}

describe("every error class in more than one bundle", () => {
  it("is a KindedError that declares its own kind", () => {
    const metafile = JSON.parse(readFileSync(join(DIST, "metafile.json"), "utf8")) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    const bundles = Object.values(metafile.outputs);
    const copies = (file: string) => bundles.filter((output) => file in output.inputs).length;
    const classes = errorClasses();
    const shared = classes.filter(({ file }) => copies(file) > 1);
    expect(shared.map(({ name }) => name)).toContain("PetstoreError");
    const unbranded = shared
      .filter(
        ({ name, kind, ancestors }) =>
          !kind || !(name === "KindedError" || ancestors.includes("KindedError")),
      )
      .map(({ name, file }) => `${name} (${file})`);
    expect(unbranded).toEqual([]);
  });
});
