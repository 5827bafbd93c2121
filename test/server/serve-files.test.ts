/**
 * `petstore serve --file` and the files next to it, on real nodes in a temporary
 * directory: devices, FIFOs, sockets and directories are refused; a symlinked data
 * file is followed once; a symlink planted where the write-ahead log or a temporary file
 * goes is never written through.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import {
  chown,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { call } from "./http.js";
import { ensureBuilt } from "./cli-build.js";
import { killServes, runServe as runServeIn, startServe as startServeIn } from "./serve-process.js";
import { HANG_MS } from "../limits.js";

let root: string;
let dir: string;
let count = 0;

beforeAll(async () => {
  await ensureBuilt();
  root = await mkdtemp(join(tmpdir(), "petstore-serve-files-"));
});
beforeEach(async () => {
  dir = join(root, String(++count));
  await mkdir(dir);
});
afterEach(killServes);
afterAll(() => rm(root, { recursive: true, force: true }));

const KEY = "files-key";
const serveArgs = (file: string) => ["--file", file, "--port", "0", "--key", KEY, "--quiet"];
const startServe = (file: string) => startServeIn(serveArgs(file), { cwd: dir });
const runServe = (file: string) => runServeIn(serveArgs(file), { cwd: dir });

const PETS =
  '[\n{"id":1,"name":"Rex","categoryId":1,"status":"available"},\n' +
  '{"id":2,"name":"Tom","categoryId":2,"status":"sold"}\n]\n';
const VICTIM = "a file someone else owns; serve must never write it\n";

/** The parts of a node that writing over it would change. */
async function identity(file: string) {
  const info = await lstat(file);
  return {
    ino: info.ino,
    mode: info.mode,
    rdev: info.rdev,
    size: info.size,
    mtimeMs: info.mtimeMs,
  };
}

function expectRefused(result: { code: number | null; stdout: string; stderr: string }) {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe("serve --file that is not a regular file", () => {
  let socketServer: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (socketServer ? socketServer.close(resolve) : resolve(null)));
    socketServer = undefined;
  });

  const makers: Array<[string, (node: string) => Promise<void>, string]> = [
    [
      "a character device",
      async (node) => {
        // The null device's numbers, but a node of this test's own directory.
        execFileSync("mknod", [node, "c", "1", "3"]);
      },
      "is a character device",
    ],
    ["a FIFO", async (node) => void execFileSync("mkfifo", [node]), "is a FIFO"],
    ["a directory", (node) => mkdir(node), "is a directory"],
    [
      "a socket",
      (node) =>
        new Promise<void>((resolve, reject) => {
          socketServer = createServer().listen(node, resolve).on("error", reject);
        }),
      "is a socket",
    ],
  ];

  it.each(makers)(
    "refuses %s with exit 2, naming it, and leaves it as it was",
    async (_, make, what) => {
      const node = join(dir, "pets.json");
      await make(node);
      const before = await identity(node);
      const result = await runServe(node);
      expectRefused(result);
      expect(result.stderr).toContain(node);
      expect(result.stderr).toContain(what);
      expect(await identity(node)).toEqual(before);
      expect(existsSync(`${node}.journal`)).toBe(false);
      expect(existsSync(`${node}.lock`)).toBe(false);
    },
  );

  it("refuses a symlink to a device, naming the link and what it points to", async () => {
    const device = join(dir, "null");
    execFileSync("mknod", [device, "c", "1", "3"]);
    const before = await identity(device);
    const link = join(dir, "pets.json");
    await symlink(device, link);
    const result = await runServe(link);
    expectRefused(result);
    expect(result.stderr).toContain(link);
    expect(result.stderr).toContain("is a character device");
    expect(await identity(device)).toEqual(before);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
  });

  it("refuses a symlink that points nowhere, and creates nothing where it points", async () => {
    const target = join(dir, "elsewhere", "pets.json");
    await mkdir(join(dir, "elsewhere"));
    const link = join(dir, "pets.json");
    await symlink(target, link);
    const result = await runServe(link);
    expectRefused(result);
    expect(result.stderr).toContain(link);
    expect(result.stderr).toContain("does not exist");
    expect(existsSync(target)).toBe(false);
    expect(await readlink(link)).toBe(target);
  });

  it("refuses a symlink that leads back to itself with exit 2, naming it", async () => {
    const link = join(dir, "pets.json");
    await symlink(link, link);
    const result = await runServe(link);
    expectRefused(result);
    expect(result.stderr).toContain(
      `${link}: it is a symlink to ${link}, which leads back to itself`,
    );
    expect(existsSync(`${link}.lock`)).toBe(false);
  });
});

describe("serve --file through a symlink", () => {
  it("updates the file the symlink points to and leaves the symlink a symlink", async () => {
    await mkdir(join(dir, "data"));
    const real = join(dir, "data", "pets.json");
    await writeFile(real, PETS);
    const link = join(dir, "pets.json");
    await symlink("data/pets.json", link);

    const serve = await startServe(link);
    const created = await call(serve.lines[0]!, "/v1/pets", {
      key: KEY,
      body: '{"name":"Luna","categoryId":3}',
    });
    expect(created.status).toBe(201);
    expect(created.text).toContain('"id":3');
    // Within the flush interval while serving, and exactly after SIGTERM.
    await vi.waitFor(async () => expect(await readFile(real, "utf8")).toContain('"Luna"'), {
      timeout: HANG_MS / 2,
      interval: 50,
    });
    serve.child.kill("SIGTERM");
    expect((await serve.exited).code).toBe(0);

    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe("data/pets.json");
    expect(await readFile(real, "utf8")).toBe(
      PETS.slice(0, -3) + ',\n{"id":3,"name":"Luna","categoryId":3,"status":"available"}\n]\n',
    );
    // The companion files live next to the real file; after a clean stop the lock is
    // gone and the write-ahead log keeps only the mark of the ids used.
    expect(existsSync(`${link}.journal`)).toBe(false);
    expect(existsSync(`${link}.lock`)).toBe(false);
    expect(await readFile(`${real}.journal`, "utf8")).toBe('{"idsUsedUpTo":3}\n');
    expect(existsSync(`${real}.lock`)).toBe(false);
  });

  it("collides on one lock with a serve of the same data through its real path", async () => {
    const real = join(dir, "real.json");
    await writeFile(real, PETS);
    const link = join(dir, "link.json");
    await symlink(real, link);

    const first = await startServe(link);
    const second = await runServe(real);
    expectRefused(second);
    expect(second.stderr).toContain("is already being served");

    const third = await runServe(link);
    expectRefused(third);
    expect(third.stderr).toContain("is already being served");

    first.child.kill("SIGTERM");
    expect((await first.exited).code).toBe(0);
    expect(await readFile(real, "utf8")).toBe(PETS);
  });

  it("collides on one lock through a symlinked directory too", async () => {
    await mkdir(join(dir, "data"));
    const real = join(dir, "data", "pets.json");
    const linkedDir = join(dir, "linked");
    await symlink(join(dir, "data"), linkedDir);

    const first = await startServe(real);
    const second = await runServe(join(linkedDir, "pets.json"));
    expectRefused(second);
    expect(second.stderr).toContain("is already being served");
    first.child.kill("SIGTERM");
    expect((await first.exited).code).toBe(0);
  });
});

describe("symlinks planted next to the data file", () => {
  it.each([".journal", ".tmp", ".journal.tmp"])(
    "refuses to start when %s is a symlink, naming it, and leaves its target byte for byte",
    async (suffix) => {
      const file = join(dir, "pets.json");
      await writeFile(file, PETS);
      const victim = join(dir, "victim.txt");
      await writeFile(victim, VICTIM);
      const before = await identity(victim);
      await symlink(victim, `${file}${suffix}`);

      const result = await runServe(file);
      expectRefused(result);
      expect(result.stderr).toContain(
        `${file}${suffix} is a symbolic link; serve writes this file itself and never follows`,
      );
      expect(await readFile(victim, "utf8")).toBe(VICTIM);
      expect(await identity(victim)).toEqual(before);
      expect(await readFile(file, "utf8")).toBe(PETS);
      expect((await lstat(`${file}${suffix}`)).isSymbolicLink()).toBe(true);
      expect(existsSync(`${file}.lock`)).toBe(false);
    },
  );

  it("refuses a write-ahead log owned by another user, leaving it as it was", async () => {
    const file = join(dir, "pets.json");
    await writeFile(file, PETS);
    const wal = '{"id":3,"name":"Planted","categoryId":1,"status":"available"}\n';
    await writeFile(`${file}.journal`, wal);
    await chown(`${file}.journal`, 4242, 4242);

    const result = await runServe(file);
    expectRefused(result);
    expect(result.stderr).toContain(`${file}.journal is owned by user 4242`);
    expect(await readFile(`${file}.journal`, "utf8")).toBe(wal);
    expect(await readFile(file, "utf8")).toBe(PETS);
  });

  it("refuses a write-ahead log that is a hard link to another file, leaving both as they were", async () => {
    const file = join(dir, "pets.json");
    await writeFile(file, PETS);
    const victim = join(dir, "victim.txt");
    await writeFile(victim, VICTIM);
    await link(victim, `${file}.journal`);

    const result = await runServe(file);
    expectRefused(result);
    expect(result.stderr).toContain(`${file}.journal has 2 names`);
    expect(await readFile(victim, "utf8")).toBe(VICTIM);
  });

  it("refuses a write-ahead log that is a FIFO without blocking on it", async () => {
    const file = join(dir, "pets.json");
    await writeFile(file, PETS);
    execFileSync("mkfifo", [`${file}.journal`]);

    const result = await runServe(file);
    expectRefused(result);
    expect(result.stderr).toContain(`${file}.journal is a FIFO`);
  });

  it("never writes through a symlink planted as the temporary file while serving", async () => {
    const file = join(dir, "pets.json");
    await writeFile(file, PETS);
    const victim = join(dir, "victim.txt");
    await writeFile(victim, VICTIM);
    const before = await identity(victim);

    const serve = await startServe(file);
    await symlink(victim, `${file}.tmp`);
    const created = await call(serve.lines[0]!, "/v1/pets", {
      key: KEY,
      body: '{"name":"Luna","categoryId":3}',
    });
    expect(created.status).toBe(201);
    // The flush that would have written the temporary file is refused and logged.
    await vi.waitFor(() => expect(serve.stderr()).toContain(`${file}.tmp is a symbolic link`), {
      timeout: HANG_MS / 2,
      interval: 50,
    });
    expect(await readFile(victim, "utf8")).toBe(VICTIM);
    expect(await identity(victim)).toEqual(before);
    // The pet stays safe in the write-ahead log; once the symlink is gone the file catches up.
    expect(await readFile(`${file}.journal`, "utf8")).toContain('"Luna"');
    await rm(`${file}.tmp`);
    await vi.waitFor(async () => expect(await readFile(file, "utf8")).toContain('"Luna"'), {
      timeout: HANG_MS / 2,
      interval: 50,
    });
    serve.child.kill("SIGTERM");
    expect((await serve.exited).code).toBe(0);
    expect(await readFile(victim, "utf8")).toBe(VICTIM);
  });
});
