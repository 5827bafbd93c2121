/**
 * A 201 is sent only once its pet is fdatasync'ed in the write-ahead log, seen for real:
 * `petstore serve` runs under strace, and the order of the write-ahead log's fdatasync and
 * the socket write of each 201 is read from the trace. Killing the process could
 * not tell (kill -9 leaves the page cache, so an unsynced write survives it).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { BIN, ensureBuilt } from "../cli-build.js";
import { call } from "../http.js";

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(path.join(tmpdir(), "petstore-sync-order-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Syscall {
  name: string;
  /** The arguments as strace prints them (paths with -y, the first bytes of data with -s). */
  args: string;
  /** The lines of the trace where it started and finished: their order. */
  start: number;
  end: number;
}

/** The finished calls of an `strace -f` trace, an interrupted call joined with its resumption. */
function syscalls(trace: string): Syscall[] {
  const pending = new Map<string, { name: string; args: string; start: number }>();
  const calls: Syscall[] = [];
  trace.split("\n").forEach((line, end) => {
    const unfinished = /^(\d+) +(\w+)\((.*) <unfinished \.\.\.>$/.exec(line);
    if (unfinished !== null) {
      pending.set(unfinished[1]!, { name: unfinished[2]!, args: unfinished[3]!, start: end });
      return;
    }
    const resumed = /^(\d+) +<\.\.\. (\w+) resumed>(.*)$/.exec(line);
    if (resumed !== null) {
      const start = pending.get(resumed[1]!);
      pending.delete(resumed[1]!);
      if (start !== undefined) calls.push({ ...start, args: start.args + resumed[3]!, end });
      return;
    }
    const whole = /^\d+ +(\w+)\((.*)$/.exec(line);
    if (whole !== null) calls.push({ name: whole[1]!, args: whole[2]!, start: end, end });
  });
  return calls;
}

const WRITES = ["write", "writev", "sendmsg", "sendto"];

it("fdatasyncs the write-ahead log before it writes each 201 to the socket", async () => {
  const file = path.join(dir, "pets.json");
  const traceFile = path.join(dir, "trace.txt");
  const strace = spawn(
    "strace",
    [
      "-f",
      "-y",
      "-s",
      "48",
      "-o",
      traceFile,
      "-e",
      "trace=fdatasync,fsync,write,writev,sendmsg,sendto",
    ].concat([
      process.execPath,
      BIN,
      "serve",
      "--file",
      file,
      "--port",
      "0",
      "--key",
      "k",
      "--quiet",
    ]),
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise((resolve) => strace.once("exit", resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      strace.stdout.once("data", (data: Buffer) => resolve(String(data).trim()));
      strace.once("exit", () => reject(new Error("serve under strace exited before it was ready")));
    });
    for (let i = 0; i < 5; i++) {
      // A 404 marks where in the trace each create starts.
      expect((await call(url, `/v1/pets/${1000 + i}`, { key: "k" })).status).toBe(404);
      const created = await call(url, "/v1/pets", {
        key: "k",
        body: `{"name":"Synced ${i}","categoryId":1}`,
      });
      expect(created.status).toBe(201);
    }
  } finally {
    // SIGTERM to the serve under strace (strace's child): it stops, strace follows.
    const children = await readFile(`/proc/${strace.pid}/task/${strace.pid}/children`, "utf8");
    for (const pid of children.trim().split(/\s+/).filter(Boolean))
      process.kill(Number(pid), "SIGTERM");
    await exited;
  }

  const calls = syscalls(await readFile(traceFile, "utf8"));
  const answers = (status: string) =>
    calls.filter((c) => WRITES.includes(c.name) && c.args.includes(`HTTP/1.1 ${status} `));
  const markers = answers("404");
  const created = answers("201");
  expect(markers).toHaveLength(5);
  expect(created).toHaveLength(5);
  const walSyncs = calls.filter(
    (c) => c.name === "fdatasync" && c.args.includes(`${file}.journal>`) && /\) += 0$/.test(c.args),
  );
  created.forEach((answer, i) => {
    const synced = walSyncs.filter((s) => s.start > markers[i]!.end && s.end < answer.start);
    expect(
      synced.length,
      `an fdatasync of the write-ahead log between create ${i}'s start and its 201`,
    ).toBeGreaterThan(0);
  });
});
