/**
 * The npm package on Windows: dist/ (from `npm run build`) run by Windows
 * `node.exe bin/petstore.js` under wine (test/platforms/wine.ts), with a
 * WINEPREFIX of its own in this file's temporary directory. `serve` under wine is
 * driven from Linux by the Linux CLI; the Windows CLI talks to a Linux `serve`.
 * Everything it writes is in that directory, the config in %APPDATA% of the
 * prefix included, as on Windows.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/server/server.js";
import { csvOf, allPets } from "../bulk/helpers.js";
import { interrupted, stopAndResume } from "../bulk/interrupt.js";
import { PRO_KEY, runCli, startFake } from "../e2e/harness.js";
import { HANG_MS, HEAVY_HANG_MS } from "../limits.js";
import { BIN, REPO_ROOT } from "../server/cli-build.js";
import { fetchRuntime } from "../../scripts/node-runtimes.mjs";
import {
  installProcessPrng,
  NO_KEEPALIVE_SHIM,
  prepareWine,
  windowsNode,
  windowsPath,
  type Wine,
  type WineProcess,
  type WineRunOptions,
} from "./wine.js";

/** The prefix is made, and the first run fetches node.exe: an install. */
const SETUP_LIMIT_MS = HEAVY_HANG_MS;
/** A test starts several wine processes, each slower than a Linux one, more while wineserver starts. */
const TEST_LIMIT_MS = 2 * HANG_MS;
const KEY = "wine-key";

let wine: Wine;
let node: string;
let dir: string;
let count = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "petstore-windows-"));
  node = await windowsNode();
  wine = await prepareWine(dir);
}, SETUP_LIMIT_MS);
afterEach(() => wine.killAll());
afterAll(async () => {
  await wine?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** `node.exe bin\petstore.js <args>` under wine. */
function petstore(args: string[], options: WineRunOptions = {}, preload?: string): WineProcess {
  const node_args = preload === undefined ? [] : ["--require", windowsPath(preload)];
  return wine.start(node, [...node_args, windowsPath(BIN), ...args], { cwd: dir, ...options });
}

const run = (args: string[], options: WineRunOptions = {}) => petstore(args, options).exited;

/** The Linux CLI against `url`. */
const linux = (args: string[], url: string) =>
  runCli(args, {
    env: {
      PETSTORE_BASE_URL: url,
      PETSTORE_API_KEY: KEY,
      PETSTORE_CONFIG_DIR: join(dir, "linux-config"),
    },
  });

interface Served {
  process: WineProcess;
  url: string;
}

async function startServe(file: string, more: string[] = []): Promise<Served> {
  const served = petstore(["serve", "--file", windowsPath(file), "--port", "0", ...more], {
    env: { PETSTORE_SERVE_KEYS: `${KEY}:pro` },
    timeoutMs: TEST_LIMIT_MS,
  });
  const stdout = await served.waitForOutput((text) => text.includes("\n"));
  return { process: served, url: stdout.split("\n")[0]! };
}

async function addFromLinux(url: string, names: string[]): Promise<bigint[]> {
  const ids: bigint[] = [];
  for (const name of names) {
    const added = await linux(["add", "--name", name, "--category-id", "3", "--json"], url);
    expect(added.code, added.stderr).toBe(0);
    ids.push(BigInt(JSON.parse(added.stdout).id));
  }
  return ids;
}

async function namesServed(url: string): Promise<string[]> {
  const listed = await linux(["list", "--json", "--limit", "100"], url);
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as Array<{ name: string }>).map((pet) => pet.name).sort();
}

/** Resolves once `ready()` holds; the test's own limit catches a notice that never comes. */
async function waitUntil(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 50));
}

function newFile(name: string): string {
  return join(dir, `${++count}-${name}`);
}

describe("the npm package under wine (Windows node.exe)", () => {
  it(
    "prints its version",
    async () => {
      const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8"));
      const result = await run(["--version"]);
      expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, timedOut: false });
    },
    TEST_LIMIT_MS,
  );

  it(
    "serves a JSON file, keeps every pet across Ctrl-C, and serves them all again",
    async () => {
      const file = newFile("pets.json");
      const first = await startServe(file);
      const names = ["Ada", "Brie", "Cleo", "Dot", "Emmy"];
      const ids = await addFromLinux(first.url, names);
      const got = await linux(["get", String(ids[2]), "--json"], first.url);
      expect(got.code, got.stderr).toBe(0);
      expect(JSON.parse(got.stdout)).toMatchObject({ name: "Cleo", categoryId: 3 });
      first.process.signal("SIGINT");
      const stopped = await first.process.exited;
      expect(stopped.code, stopped.stderr).toBe(0);
      expect(existsSync(`${file}.lock`)).toBe(false);
      // Nothing left in the write-ahead log but the mark of the ids used.
      expect(readFileSync(`${file}.journal`, "utf8")).toBe(`{"idsUsedUpTo":${names.length}}\n`);
      const saved = JSON.parse(readFileSync(file, "utf8")) as Array<{ name: string }>;
      expect(saved.map((pet) => pet.name).sort()).toEqual(names);

      const second = await startServe(file);
      expect(await namesServed(second.url)).toEqual(names);
      second.process.signal("SIGINT");
      expect((await second.process.exited).code).toBe(0);
    },
    TEST_LIMIT_MS,
  );

  it(
    "after kill -TERM (no handler runs, as for a closed console), starts again on its own stale lock and keeps every pet",
    async () => {
      const file = newFile("pets.json");
      // With no wineserver running, the first process gets the same pid each time:
      // the restarted server finds its own pid in the lock its predecessor left.
      await wine.untilServerEnds();
      const first = await startServe(file);
      const names = ["Fig", "Gus", "Hal"];
      await addFromLinux(first.url, names);
      first.process.signal("SIGTERM");
      expect(await first.process.exited).toMatchObject({ code: null, signal: "SIGTERM" });
      const stalePid = readFileSync(`${file}.lock`, "utf8").trim();

      await wine.untilServerEnds();
      const second = await startServe(file);
      // Windows writes to a pipe asynchronously: the notice can reach us after the URL.
      await waitUntil(() => second.process.stderr().includes("Taking over"));
      expect(second.process.stderr()).toContain(
        `Taking over ${windowsPath(file)}.lock: it names this process (${stalePid})`,
      );
      expect(await namesServed(second.url)).toEqual(names);
      second.process.signal("SIGINT");
      expect((await second.process.exited).code).toBe(0);
      expect(existsSync(`${file}.lock`)).toBe(false);
    },
    TEST_LIMIT_MS,
  );

  it(
    "serve --tls reuses its CA at the next start (every file reads mode 0666 on Windows)",
    async () => {
      const file = newFile("pets.json");
      const starts: string[] = [];
      for (let round = 0; round < 2; round++) {
        const served = await startServe(file, ["--tls"]);
        expect(served.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
        served.process.signal("SIGINT");
        const stopped = await served.process.exited;
        expect(stopped.code, stopped.stderr).toBe(0);
        starts.push(stopped.stderr);
      }
      expect(starts[0]).toContain("made a new local CA");
      expect(starts[1]).not.toContain("made a new local CA");
      expect(starts[1]).toContain(
        `on Windows, who may read ${windowsPath(file)}.ca-key.pem cannot be checked`,
      );
    },
    TEST_LIMIT_MS,
  );
});

describe("the Windows CLI against a Linux serve", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startFake({ faults: { latency: { minMs: 30, maxMs: 60 } } });
  });
  afterAll(() => server?.close());

  it(
    "logs in (the key checked), keeps the config under %APPDATA%, and lists, adds and gets",
    async () => {
      const configDir = join(wine.appData, "petstore");
      expect(existsSync(configDir)).toBe(false);
      const login = await run(
        ["auth", "login", "--profile", "shelter", "--base-url", server.url, "--with-token"],
        { stdin: `${PRO_KEY}\n` },
      );
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).not.toContain("warning");
      const config = JSON.parse(readFileSync(join(configDir, "config.json"), "utf8"));
      expect(config.profiles.shelter.apiKey).toBe(PRO_KEY);

      const env = { PETSTORE_PROFILE: "shelter" };
      const added = await run(["add", "--name", "Iggy", "--category-id", "4", "--json"], { env });
      expect(added.code, added.stderr).toBe(0);
      const { id } = JSON.parse(added.stdout) as { id: number };
      const got = await run(["get", String(id), "--json"], { env });
      expect(JSON.parse(got.stdout)).toMatchObject({ id, name: "Iggy", categoryId: 4 });
      const listed = await run(["list", "--json"], { env });
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toContainEqual(expect.objectContaining({ name: "Iggy" }));
      const profiles = await run(["profile", "list"], { env });
      expect(profiles.stdout).toContain("shelter");
    },
    TEST_LIMIT_MS,
  );

  it(
    "filters with --jq, jq.wasm found beside its bundle through a Windows path",
    async () => {
      const env = { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: PRO_KEY };
      const json = await run(["list", "--json"], { env });
      const pets = JSON.parse(json.stdout) as { id: number; name: string }[];
      expect(pets.length).toBeGreaterThan(0);
      const filtered = await run(["list", "--jq", '.[] | "\\(.id) \\(.name)"'], { env });
      expect(filtered.code, filtered.stderr).toBe(0);
      expect(filtered.stdout).toBe(pets.map((pet) => `${pet.id} ${pet.name}\n`).join(""));
    },
    TEST_LIMIT_MS,
  );

  it(
    "keeps the key in the Credential Manager through the binding npm installs on Windows",
    async () => {
      // What `npm install` puts beside the package on Windows (an optional dependency),
      // found here through NODE_PATH: this checkout's node_modules holds Linux's.
      const binding = "@napi-rs/keyring-win32-x64-msvc";
      const { optionalDependencies } = JSON.parse(
        readFileSync(join(REPO_ROOT, "package.json"), "utf8"),
      ) as { optionalDependencies: Record<string, string> };
      const modules = join(dir, "node_modules");
      cpSync(
        await fetchRuntime(REPO_ROOT, binding, optionalDependencies[binding]!),
        join(modules, binding),
        {
          recursive: true,
        },
      );
      installProcessPrng(wine, dir);
      const configDir = join(dir, "keyring-config");
      const env = { NODE_PATH: windowsPath(modules), PETSTORE_CONFIG_DIR: windowsPath(configDir) };
      const login = await run(
        ["auth", "login", "--profile", "vault", "--base-url", server.url, "--with-token"],
        { env, stdin: PRO_KEY },
      );
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain(
        "in profile vault (production) in the Windows Credential Manager.",
      );
      const stored = readFileSync(join(configDir, "config.json"), "utf8");
      expect(stored).not.toContain(PRO_KEY);
      expect(JSON.parse(stored).profiles.vault.keyring).toMatch(/^vault@Z:\\/);
      const listed = await run(["list", "--json", "--profile", "vault"], { env });
      expect(listed.code, listed.stderr).toBe(0);
      expect((await run(["auth", "logout", "--profile", "vault"], { env })).code).toBe(0);
      expect((await run(["list", "--profile", "vault"], { env })).code).toBe(3);
    },
    TEST_LIMIT_MS,
  );

  it(
    "says so when the key is stored outside the profile directory, where no one can check who may read it",
    async () => {
      const configFile = windowsPath(join(dir, "elsewhere", "config.json"));
      const login = await run(["auth", "login", "--no-verify", "--with-token"], {
        env: { PETSTORE_CONFIG_DIR: windowsPath(join(dir, "elsewhere")) },
        stdin: `${PRO_KEY}\n`,
      });
      expect(login.code, login.stderr).toBe(0);
      expect(login.stderr).toContain(
        `warning: on Windows, who may read ${configFile} cannot be checked (that is its folder's ACL)`,
      );
    },
    TEST_LIMIT_MS,
  );

  it(
    "add --from: Ctrl-C stops it with 130, --resume adds the rest, each row once",
    () =>
      stopAndResume({
        dir,
        path: windowsPath,
        start: (args) =>
          petstore(
            args,
            {
              env: { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: PRO_KEY },
              timeoutMs: TEST_LIMIT_MS,
            },
            NO_KEEPALIVE_SHIM,
          ),
        names: () => allPets(server.store).map((pet) => pet.name),
        timeoutMs: TEST_LIMIT_MS,
      }),
    TEST_LIMIT_MS,
  );

  it(
    "add --from: a second Ctrl-C quits at once with 130 (not the 1 Windows gives a re-raised signal)",
    async () => {
      // Answers take 5 s, so the requests in flight are still waited for at the second Ctrl-C.
      const slow = await startFake({ faults: { latency: { minMs: 5_000, maxMs: 5_000 } } });
      try {
        const input = newFile("rows.csv");
        writeFileSync(input, csvOf(50, "q"));
        const results = newFile("rows.results");
        const quit = await interrupted(
          petstore(
            ["add", "--from", windowsPath(input), "--results", windowsPath(results)],
            { env: { PETSTORE_BASE_URL: slow.url, PETSTORE_API_KEY: PRO_KEY } },
            NO_KEEPALIVE_SHIM,
          ),
          results,
          { after: '"outcome":"sending"', ctrlCs: 2, timeoutMs: TEST_LIMIT_MS },
        );
        expect(quit.code, quit.stderr).toBe(130);
        expect(quit.stderr).toContain("Ctrl-C again to quit at once");
      } finally {
        await slow.close();
      }
    },
    TEST_LIMIT_MS,
  );
});
