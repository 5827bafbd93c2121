/**
 * `petstore serve --tls` end to end: a real serve process on an ephemeral port, its
 * data file in a temporary directory, and the real CLI (`list`, `add`, `get`,
 * `add --from`) trusting the CA it wrote through NODE_EXTRA_CA_CERTS, as
 * `--print-env` says. Without that variable the CLI fails with exit 6 and its TLS
 * hint. A restart reuses the CA, so a client set up once keeps working; a
 * certificate of one's own is served with --tls-cert and --tls-key.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/errors.js";
import { parseJson } from "../../src/schema/json.js";
import { REPO_ROOT } from "../server/cli-build.js";
import { killServes, startServe, type Serve } from "../server/serve-process.js";
import { PRO_KEY, runCli, tempDir, type CliResult } from "./harness.js";

const FIXTURE_CERT = join(REPO_ROOT, "test", "fixtures", "tls", "localhost.crt");
const FIXTURE_KEY = join(REPO_ROOT, "test", "fixtures", "tls", "localhost.key");
const SEEDED = 3;

let home: ReturnType<typeof tempDir>;
let file: string;
let serve: Serve;
let exported: Record<string, string>;

/** `export NAME='value'` lines as a record (the values here hold no quote). */
function parseExports(lines: string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of lines) {
    const match = /^export ([A-Z_]+)='([^']*)'$/.exec(line);
    if (match === null) throw new Error(`not an export line: ${line}`);
    values[match[1]!] = match[2]!;
  }
  return values;
}

function serveTls(extra: string[] = []): Promise<Serve> {
  const args = ["--file", file, "--port", "0", "--seed", String(SEEDED)];
  return startServe(
    [...args, "--key", `${PRO_KEY}:pro`, "--tls", "--print-env", "--quiet", ...extra],
    { cwd: home.path },
    3,
  );
}

async function stop(running: Serve): Promise<void> {
  running.child.kill("SIGTERM");
  expect((await running.exited).code).toBe(0);
}

function env(values: Record<string, string>, trust = true): NodeJS.ProcessEnv {
  return {
    PETSTORE_BASE_URL: values.PETSTORE_BASE_URL,
    PETSTORE_API_KEY: values.PETSTORE_API_KEY,
    PETSTORE_CONFIG_DIR: home.path,
    NO_COLOR: "1",
    ...(trust ? { NODE_EXTRA_CA_CERTS: values.NODE_EXTRA_CA_CERTS } : {}),
  };
}

function expectTlsFailure(run: CliResult): void {
  expect(run.code, run.stderr).toBe(EXIT.NETWORK);
  expect(run.stderr).toMatch(/TLS connection to 127\.0\.0\.1:\d+ failed: .*certificate/);
  expect(run.stderr).toContain("point NODE_EXTRA_CA_CERTS at that authority's certificate");
  expect(run.stderr).not.toMatch(/^\s+at /m);
}

beforeAll(async () => {
  home = tempDir();
  file = join(home.path, "pets.json");
  serve = await serveTls();
  exported = parseExports(serve.lines);
});

afterAll(() => {
  killServes();
  home?.remove();
});

describe("serve --tls --print-env", () => {
  it("prints an https base URL, the key and NODE_EXTRA_CA_CERTS in three export lines", () => {
    expect(Object.keys(exported)).toEqual([
      "PETSTORE_BASE_URL",
      "PETSTORE_API_KEY",
      "NODE_EXTRA_CA_CERTS",
    ]);
    expect(exported.PETSTORE_BASE_URL).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(exported.PETSTORE_API_KEY).toBe(PRO_KEY);
    expect(exported.NODE_EXTRA_CA_CERTS).toBe(`${file}.ca.pem`);
  });

  it("writes the CA certificate next to the data file and its key readable by its owner only", () => {
    const ca = new X509Certificate(readFileSync(`${file}.ca.pem`));
    expect(ca.ca).toBe(true);
    expect(ca.subject).toContain("CN=petstore serve local CA");
    expect(statSync(`${file}.ca-key.pem`).mode & 0o777).toBe(0o600);
    expect(readFileSync(`${file}.ca.pem`, "utf8")).not.toContain("PRIVATE KEY");
  });
});

describe("the CLI over serve --tls with NODE_EXTRA_CA_CERTS", () => {
  it("lists, adds and gets a pet", async () => {
    const listed = await runCli(["list", "--json"], { env: env(exported) });
    expect(listed.code, listed.stderr).toBe(0);
    expect((parseJson(listed.stdout) as unknown[]).length).toBeGreaterThanOrEqual(SEEDED);

    const added = await runCli(["add", "--name", "Secure", "--category-id", "4", "--json"], {
      env: env(exported),
    });
    expect(added.code, added.stderr).toBe(0);
    const pet = parseJson(added.stdout) as { id: bigint; name: string };
    expect(pet.name).toBe("Secure");

    const got = await runCli(["get", String(pet.id), "--json"], { env: env(exported) });
    expect(got.code, got.stderr).toBe(0);
    expect(parseJson(got.stdout)).toEqual(pet);
  });

  it("adds 40 NDJSON rows with add --from, every one added", async () => {
    const rows = 40;
    const from = join(home.path, "rows.ndjson");
    let text = "";
    for (let i = 1; i <= rows; i++) text += `{"name":"tls-row-${i}","categoryId":${i}}\n`;
    writeFileSync(from, text);
    const results = join(home.path, "results.ndjson");
    const run = await runCli(["add", "--from", from, "--results", results], {
      env: env(exported),
    });
    expect(run.code, run.stderr).toBe(0);
    // The last line about each row is its outcome.
    const last = new Map<bigint, string | undefined>();
    for (const line of readFileSync(results, "utf8").split("\n")) {
      if (line === "") continue;
      const record = parseJson(line) as { row?: bigint; outcome?: string };
      if (record.row !== undefined) last.set(record.row, record.outcome);
    }
    expect(last.size).toBe(rows);
    expect([...last.values()].every((outcome) => outcome === "added")).toBe(true);

    const listed = await runCli(["list", "--limit", "100", "--json"], { env: env(exported) });
    const names = (parseJson(listed.stdout) as Array<{ name: string }>).map((p) => p.name);
    expect(names.filter((name) => name.startsWith("tls-row-"))).toHaveLength(rows);
  });
});

describe("the CLI over serve --tls without NODE_EXTRA_CA_CERTS", () => {
  it("fails `list` with exit 6 and the TLS hint, printing nothing on stdout", async () => {
    const run = await runCli(["list"], { env: env(exported, false) });
    expectTlsFailure(run);
    expect(run.stdout).toBe("");
  });

  it("fails `add --from` the same way, adding nothing", async () => {
    const from = join(home.path, "untrusted.ndjson");
    writeFileSync(from, '{"name":"never","categoryId":1}\n');
    const run = await runCli(["add", "--from", from, "--results", join(home.path, "u.ndjson")], {
      env: env(exported, false),
    });
    expectTlsFailure(run);
    const listed = await runCli(["list", "--limit", "100", "--json"], { env: env(exported) });
    expect(listed.stdout).not.toContain('"never"');
  });
});

describe("a restart of serve --tls", () => {
  afterEach(killServes);

  it("reuses the CA, so the same NODE_EXTRA_CA_CERTS keeps working", async () => {
    const before = readFileSync(`${file}.ca.pem`, "utf8");
    const keyBefore = readFileSync(`${file}.ca-key.pem`, "utf8");
    await stop(serve);
    serve = await serveTls();
    const again = parseExports(serve.lines);
    expect(again.NODE_EXTRA_CA_CERTS).toBe(exported.NODE_EXTRA_CA_CERTS);
    expect(readFileSync(`${file}.ca.pem`, "utf8")).toBe(before);
    expect(readFileSync(`${file}.ca-key.pem`, "utf8")).toBe(keyBefore);
    const run = await runCli(["list", "--json"], { env: env(again) });
    expect(run.code, run.stderr).toBe(0);
    await stop(serve);
    expect(serve.stderr()).not.toContain("made a new local CA");
  });
});

describe("serve --tls-cert --tls-key", () => {
  afterEach(killServes);

  it("serves that certificate, and --print-env points NODE_EXTRA_CA_CERTS at it when self-signed", async () => {
    const own = await startServe(
      [
        ...["--file", join(home.path, "own.json"), "--port", "0", "--key", `${PRO_KEY}:pro`],
        ...["--tls-cert", FIXTURE_CERT, "--tls-key", FIXTURE_KEY, "--print-env", "--quiet"],
      ],
      { cwd: home.path },
      3,
    );
    const values = parseExports(own.lines);
    expect(values.PETSTORE_BASE_URL).toMatch(/^https:\/\//);
    expect(values.NODE_EXTRA_CA_CERTS).toBe(FIXTURE_CERT);
    const run = await runCli(["add", "--name", "Own", "--category-id", "1", "-q"], {
      env: env(values),
    });
    expect(run.code, run.stderr).toBe(0);
    expectTlsFailure(await runCli(["list"], { env: env(values, false) }));
    await stop(own);
    expect(readFileSync(join(home.path, "own.json"), "utf8")).toContain('"Own"');
  });
});
