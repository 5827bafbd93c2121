import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call } from "./http.js";
import { ensureBuilt } from "./cli-build.js";
import { killServes, runServe as runServeIn, startServe as startServeIn } from "./serve-process.js";

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "petstore-serve-"));
});
afterEach(killServes);
afterAll(() => rm(dir, { recursive: true, force: true }));

const startServe = (args: string[], count = 1, env: NodeJS.ProcessEnv = {}) =>
  startServeIn(args, { cwd: dir, env }, count);
const runServe = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runServeIn(args, { cwd: dir, env });

describe("petstore serve", () => {
  it("prints the base URL, serves the file, and flushes it on SIGTERM with exit 0", async () => {
    const file = join(dir, "flush.json");
    const serve = await startServe([
      "--file",
      file,
      "--port",
      "0",
      "--seed",
      "3",
      "--key",
      "k1:pro",
    ]);
    const [url] = serve.lines;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[0-9]+\/v1$/);
    const listed = await call(url!, "/v1/pets", { key: "k1" });
    expect(listed.status).toBe(200);
    expect(listed.headers["x-ratelimit-limit"]).toBe("300");
    expect((listed.json() as unknown[]).length).toBe(3);
    const created = await call(url!, "/v1/pets", {
      key: "k1",
      body: '{"name":"Flushed","categoryId":9223372036854775807}',
    });
    expect(created.status).toBe(201);

    serve.child.kill("SIGTERM");
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    const saved = JSON.parse(await readFile(file, "utf8")) as { name: string }[];
    expect(saved).toHaveLength(4);
    expect(await readFile(file, "utf8")).toContain('"categoryId":9223372036854775807');
    expect(serve.stderr()).toMatch(/POST \/v1\/pets 201 /);
    expect(serve.stderr()).not.toContain("k1");
  });

  it("stops as cleanly on SIGHUP (a closed terminal or console window): file flushed, no lock left", async () => {
    const file = join(dir, "hangup.json");
    const serve = await startServe(["--file", file, "--port", "0", "--key", "k1:pro"]);
    const created = await call(serve.lines[0]!, "/v1/pets", {
      key: "k1",
      body: '{"name":"Hung up","categoryId":1}',
    });
    expect(created.status).toBe(201);
    serve.child.kill("SIGHUP");
    expect(await serve.exited).toEqual({ code: 0, signal: null });
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual([
      expect.objectContaining({ name: "Hung up" }),
    ]);
    expect(existsSync(`${file}.lock`)).toBe(false);
    // Nothing left in the write-ahead log but the mark of the ids used.
    expect(await readFile(`${file}.journal`, "utf8")).toBe('{"idsUsedUpTo":1}\n');
  });

  it("prints export lines with --print-env and the generated key on stderr, and stops on SIGINT", async () => {
    const serve = await startServe(
      ["--file", join(dir, "env.json"), "--port", "0", "--print-env", "--quiet"],
      2,
    );
    const [urlLine, keyLine] = serve.lines;
    const url = /^export PETSTORE_BASE_URL='(http:\/\/127\.0\.0\.1:[0-9]+\/v1)'$/.exec(
      urlLine!,
    )?.[1];
    const key = /^export PETSTORE_API_KEY='(psk_[A-Za-z0-9_-]+)'$/.exec(keyLine!)?.[1];
    expect(url).toBeDefined();
    expect(key).toBeDefined();
    expect(serve.stderr()).toContain(`generated a free-plan key: ${key}`);
    const answer = await call(url!, "/v1/pets", { key });
    expect(answer.status).toBe(200);
    expect(answer.headers["x-ratelimit-limit"]).toBe("60");
    serve.child.kill("SIGINT");
    expect((await serve.exited).code).toBe(0);
    expect(serve.stderr()).not.toMatch(/GET \/v1\/pets/);
  });

  it("takes keys from a keys file, else from PETSTORE_SERVE_KEYS", async () => {
    const keysFile = join(dir, "keys.txt");
    await writeFile(keysFile, "# keys\nfile-key:business\n");
    const fromFile = await startServe(
      ["--file", join(dir, "keys.json"), "--port", "0", "--keys-file", keysFile, "--print-env"],
      2,
      { PETSTORE_SERVE_KEYS: "env-key:pro" },
    );
    expect(fromFile.lines[1]).toBe("export PETSTORE_API_KEY='file-key'");
    fromFile.child.kill("SIGTERM");
    await fromFile.exited;

    const fromEnv = await startServe(
      ["--file", join(dir, "keys.json"), "--port", "0", "--print-env"],
      2,
      { PETSTORE_SERVE_KEYS: "env-key:pro, other" },
    );
    expect(fromEnv.lines[1]).toBe("export PETSTORE_API_KEY='env-key'");
    const url = /'(.*)'/.exec(fromEnv.lines[0]!)![1]!;
    expect((await call(url, "/v1/pets", { key: "other" })).status).toBe(200);
    fromEnv.child.kill("SIGTERM");
    await fromEnv.exited;
  });

  it("refuses a second serve of the same file with exit 2 and a clear message", async () => {
    const file = join(dir, "locked.json");
    const first = await startServe(["--file", file, "--port", "0", "--key", "a"]);
    const second = await runServe(["--file", file, "--port", "0", "--key", "a"]);
    expect(second.code).toBe(2);
    expect(second.stdout).toBe("");
    expect(second.stderr).toContain("locked.json is already being served");
    expect(second.stderr).not.toMatch(/\n\s+at /);
    first.child.kill("SIGTERM");
    expect((await first.exited).code).toBe(0);
  });

  it("refuses a corrupt file with exit 2, naming line and column, and leaves it alone", async () => {
    const file = join(dir, "corrupt.json");
    const text = '[\n{"id":1,"name":"A","categoryId":1},\n{"id":2,\n';
    await writeFile(file, text);
    const result = await runServe(["--file", file, "--port", "0", "--key", "a"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/corrupt\.json is not valid JSON: .*line 4, column 1/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await readFile(file, "utf8")).toBe(text);
    // Refused, it creates nothing: no write-ahead log, no lock.
    expect((await readdir(dir)).filter((name) => name.startsWith("corrupt.json"))).toEqual([
      "corrupt.json",
    ]);
  });

  it.each([
    [["--port", "http"], "--port must be an integer from 0 to 65535"],
    [["--port", "70000"], "--port must be an integer from 0 to 65535"],
    [["--key", "k:gold"], '--key: plan must be one of free, pro, business, enterprise; got "gold"'],
    [["--latency", "slow"], "--latency must be"],
    [["--fail-rate", "2"], "--fail-rate must be a number from 0 to 1"],
    [["--fail-rate", "0.5", "--fail-mode", "drop"], "--fail-mode must be one of"],
    [["--seed", "-3"], "--seed must be an integer"],
    [["--cors", "localhost:5173"], '--cors: "localhost:5173" is not an origin: scheme://host'],
    [["--cors", "http://a.test,"], '--cors: "" is not an origin'],
    [
      ["--keys-file", "missing-keys.txt"],
      "--keys-file missing-keys.txt: cannot read it (no such file)",
    ],
  ])("refuses %j with exit 2: %s", async (args, message) => {
    const result = await runServe(["--file", join(dir, "options.json"), ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses a --keys-file that is a FIFO or a directory at once, with exit 2", async () => {
    const fifo = join(dir, "keys.fifo");
    execFileSync("mkfifo", [fifo]);
    for (const [file, kind] of [
      [fifo, "it is a FIFO (named pipe)"],
      [dir, "it is a directory"],
    ] as const) {
      const result = await runServe(["--file", join(dir, "options.json"), "--keys-file", file]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `--keys-file ${file}: ${kind}, not a regular file. Give a keys file.`,
      );
    }
  });

  it("says when the port is taken, and a start that fails leaves nothing behind", async () => {
    const first = await startServe([
      "--file",
      join(dir, "port-a.json"),
      "--port",
      "0",
      "--key",
      "a",
    ]);
    const port = new URL(first.lines[0]!).port;
    const failed = join(dir, "port-b");
    await mkdir(failed);
    const attempt = async (args: string[]) => {
      const second = await runServe(["--port", port, "--key", "a", ...args]);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    };
    // A new file (seeded or not, with the local CA of --tls): nothing is left.
    for (const extra of [[], ["--seed", "5"], ["--tls"]]) {
      await attempt(["--file", join(failed, "new.json"), ...extra]);
      expect(await readdir(failed)).toEqual([]);
    }
    // An empty file stays empty; a file of pets stays as it was, with no write-ahead log.
    await writeFile(join(failed, "empty.json"), "");
    await attempt(["--file", join(failed, "empty.json"), "--seed", "5"]);
    const pets = '[\n{"id":1,"name":"Kept","categoryId":1}\n]\n';
    await writeFile(join(failed, "pets.json"), pets);
    await attempt(["--file", join(failed, "pets.json"), "--tls"]);
    expect((await readdir(failed)).sort()).toEqual(["empty.json", "pets.json"]);
    expect(await readFile(join(failed, "empty.json"), "utf8")).toBe("");
    expect(await readFile(join(failed, "pets.json"), "utf8")).toBe(pets);
    first.child.kill("SIGTERM");
    await first.exited;
  });
});
