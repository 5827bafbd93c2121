/**
 * A failed write to stdout, for real: the CLI (dist/) spawned with its stdout on
 * /dev/full (every write fails with ENOSPC, the standard way to test a full disk),
 * against a real `petstore serve` process on an ephemeral port. A reader that went
 * away (EPIPE, `petstore list | head -1`) stays a quiet success.
 */
import { execFileSync, spawn, type StdioOptions } from "node:child_process";
import { closeSync, constants, openSync, writeFileSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve, type Served } from "../dist/run.js";
import { CLI } from "./cli.js";
import { PRO_KEY, tempDir, type CliResult } from "./harness.js";

const ENOSPC_MESSAGE = "could not write to standard output: no space left on device (ENOSPC)";

/**
 * 100 pets whose names are 200 control characters: `list --output tsv` shows each
 * as `\x01`, 80 KB in all, more than a pipe holds, so a write to a pipe nobody
 * reads can only end in EPIPE, whatever the timing.
 */
const FILLER = Array.from(
  { length: 100 },
  (_, i) =>
    `{"id":${i + 1},"name":${JSON.stringify("\u0001".repeat(200))},"categoryId":1,"status":"sold"}`,
);

let dir: ReturnType<typeof tempDir>;
let served: Served;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = tempDir();
  const base = { PATH: process.env.PATH, HOME: dir.path };
  writeFileSync(join(dir.path, "pets.json"), `[\n${FILLER.join(",\n")}\n]\n`);
  served = await serve(
    [...CLI],
    ["--file", join(dir.path, "pets.json"), "--key", `${PRO_KEY}:pro`],
    { cwd: dir.path, env: base },
  );
  env = {
    ...base,
    PETSTORE_CONFIG_DIR: dir.path,
    PETSTORE_BASE_URL: served.url,
    PETSTORE_API_KEY: PRO_KEY,
  };
});

afterAll(async () => {
  await served?.stop();
  dir?.remove();
});

/** Runs the CLI with `stdout` as its standard output (a descriptor or "pipe"). */
function runWith(
  args: string[],
  stdout: number | "pipe",
  onSpawn?: (child: ReturnType<typeof spawn>) => void,
): Promise<CliResult> {
  const stdio: StdioOptions = ["ignore", stdout, "pipe"];
  const child = spawn(CLI[0], [CLI[1], ...args], { env, stdio, cwd: dir.path });
  onSpawn?.(child);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: out, stderr: err });
    });
  });
}

async function runToDevFull(args: string[]): Promise<CliResult> {
  const full = openSync("/dev/full", "w");
  try {
    return await runWith(args, full);
  } finally {
    closeSync(full);
  }
}

async function listedPets(): Promise<{ id: number; name: string }[]> {
  const run = await runWith(["list", "--json", "--status", "available"], "pipe");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as { id: number; name: string }[];
}

describe("a failed write to stdout", () => {
  it("add -q > /dev/full: exit 1, the new pet's id on stderr, and the pet on the server", async () => {
    const run = await runToDevFull(["add", "--name", "Lost Id", "--category-id", "4", "-q"]);
    expect(run.code).toBe(1);
    const added = /pet (\d+) was added/.exec(run.stderr);
    expect(added, run.stderr).not.toBeNull();
    expect(run.stderr).toContain(ENOSPC_MESSAGE);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const pets = await listedPets();
    expect(pets).toContainEqual(
      expect.objectContaining({ id: Number(added![1]), name: "Lost Id" }),
    );
  });

  it.each([
    [["list", "--json"]],
    [["list", "--output", "csv"]],
    [["list"]],
    [["auth", "status"]],
    [["profile", "list", "--json"]],
    [["completion", "bash"]],
    [["--help"]],
    [["--version"]],
  ])("%j > /dev/full: exit 1 with the error named on stderr", async (args) => {
    const run = await runToDevFull(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(ENOSPC_MESSAGE);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("a reader that went away (EPIPE) is still a quiet exit 0", async () => {
    const args = ["list", "--status", "sold", "--limit", "100", "--output", "tsv"];
    const run = await runWith(args, "pipe", (child) => child.stdout!.destroy());
    expect(run).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it.each([
    ["reads everything", false],
    ["goes away after the first chunk", true],
  ])(
    "on a non-blocking FIFO whose reader %s: the rest goes through the stream, exit 0",
    async (_, hangUp) => {
      // 80 KB written at once overfill the FIFO (64 KiB) while nobody reads: writeSync meets
      // EAGAIN and the stream must keep the rest until the reader comes (a CLI that dropped
      // it would exit at once, its output cut at 64 KiB).
      const fifo = join(dir.path, `out-${String(hangUp)}.fifo`);
      execFileSync("mkfifo", [fifo]);
      const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      const args = ["list", "--status", "sold", "--limit", "100", "--output", "tsv"];
      const run = runWith(args, writer);
      // libuv makes a child's stdio blocking before exec; spawn() returns after the exec, and
      // opening the descriptor as a pipe here sets O_NONBLOCK on the description they share.
      new Socket({ fd: writer, readable: false, writable: true }).destroy();
      await Promise.race([run, new Promise((resolve) => setTimeout(resolve, 500))]);
      const reader = new Socket({ fd: readEnd, readable: true, writable: false });
      const closed = new Promise((resolve) => reader.once("close", resolve));
      let received = "";
      reader.on("data", (chunk: Buffer) => {
        received += chunk.toString();
        if (hangUp) reader.destroy();
      });
      const result = await run;
      if (!hangUp) await closed;
      reader.destroy();
      expect(result).toEqual({ code: 0, stdout: "", stderr: "" });
      const expected = FILLER.map((_, i) => `${i + 1}\t${"\\x01".repeat(200)}\t1\tsold\n`).join("");
      if (hangUp) {
        expect(expected.startsWith(received) && received.length < expected.length).toBe(true);
      } else expect(received).toBe(expected);
    },
  );
});
