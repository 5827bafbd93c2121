import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, lstatSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import { bundleScript } from "../bundle-script.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { acquireFileLock, waitForFileLock, type FileLock } from "../../src/files/file-lock.js";

/** Beyond any pid_max: a process that is certainly not running. */
const DEAD_PID = 2 ** 22 + 1;

let dir: string;
let racer: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "petstore-lock-"));
  racer = await bundleScript(new URL("fixtures/lock-racer.ts", import.meta.url), dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const held: FileLock[] = [];
afterEach(() => {
  for (const lock of held.splice(0)) lock.release();
});

let count = 0;
function lockPath(): string {
  return path.join(dir, `case-${++count}.lock`);
}

function take(at: string, onStale?: (pid: number | undefined) => void) {
  const attempt = acquireFileLock(at, onStale === undefined ? {} : { onStale });
  if (attempt.acquired) held.push(attempt.lock);
  return attempt;
}

interface Racer {
  child: ChildProcessWithoutNullStreams;
  lines: Interface;
  ask(line: string): Promise<string>;
}

function startRacer(at: string): Racer {
  const child = spawn(process.execPath, [racer, at]);
  const lines = createInterface({ input: child.stdout });
  const waiting: Array<(line: string) => void> = [];
  lines.on("line", (line) => waiting.shift()?.(line));
  return {
    child,
    lines,
    ask(line) {
      return new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write(`${line}\n`);
      });
    },
  };
}

describe("two processes racing for one lock", () => {
  it("never both hold it, 200 rounds, half of them taking over a stale lock", async () => {
    const at = lockPath();
    const racers = [startRacer(at), startRacer(at)];
    const outcomes = new Map<string, number>();
    try {
      for (let round = 0; round < 200; round++) {
        const stale = round % 2 === 1;
        if (stale) await writeFile(at, `${DEAD_PID}\n`);
        // Both wait for the same instant, a few milliseconds ahead, then try at once.
        const start = performance.timeOrigin + performance.now() + 5;
        const answers = await Promise.all(racers.map((r) => r.ask(`try ${start}`)));
        const key = `${stale ? "stale" : "free"}: ${[...answers].sort().join(", ")}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        const holders = racers.filter((_, i) => answers[i] === "held");
        expect(
          holders,
          `round ${round} (${stale ? "stale lock" : "no lock"}): ${answers}`,
        ).toHaveLength(1);
        expect(answers.find((a) => a !== "held")).toBe("refused held");
        expect(await holders[0]!.ask("release")).toBe("released");
        expect(existsSync(at), `round ${round}: released`).toBe(false);
      }
    } finally {
      for (const r of racers) r.child.kill();
    }
    expect([...outcomes.keys()].sort()).toEqual([
      "free: held, refused held",
      "stale: held, refused held",
    ]);
  });
});

describe("a lock file", () => {
  it("appears with the holder's pid, and the private file it was written to is gone", () => {
    const at = lockPath();
    const attempt = take(at);
    expect(attempt.acquired).toBe(true);
    expect(readFileSync(at, "utf8")).toBe(`${process.pid}\n`);
    expect(existsSync(`${at}.${process.pid}`)).toBe(false);
    expect(lstatSync(at).mode & 0o777).toBe(0o600);
  });

  it("is refused while a running process holds it (this one too)", async () => {
    const at = lockPath();
    await writeFile(at, `${process.ppid}\n`);
    expect(take(at)).toEqual({ acquired: false, reason: "held", pid: process.ppid });
    await unlink(at);
    expect(take(at).acquired).toBe(true);
    expect(take(at)).toEqual({ acquired: false, reason: "held", pid: process.pid });
  });

  it("is taken over when its process is gone or it holds no pid, saying so", async () => {
    for (const [content, pid] of [
      [`${DEAD_PID}\n`, DEAD_PID],
      ["", undefined],
      ["not a pid\n", undefined],
    ] as const) {
      const at = lockPath();
      await writeFile(at, content);
      const stale: Array<number | undefined> = [];
      expect(take(at, (p) => stale.push(p)).acquired).toBe(true);
      expect(stale).toEqual([pid]);
      expect(readFileSync(at, "utf8")).toBe(`${process.pid}\n`);
    }
  });

  it("is taken over when it names this process but this process does not hold it (a reused pid)", async () => {
    const at = lockPath();
    await writeFile(at, `${process.pid}\n`);
    const stale: Array<number | undefined> = [];
    const attempt = take(at, (p) => stale.push(p));
    expect(attempt.acquired).toBe(true);
    expect(stale).toEqual([process.pid]);
    expect(take(at)).toEqual({ acquired: false, reason: "held", pid: process.pid });
    if (attempt.acquired) attempt.lock.release();
    expect(existsSync(at)).toBe(false);
  });

  it("released, is removed only if it is still this holder's", async () => {
    const at = lockPath();
    const attempt = take(at);
    if (!attempt.acquired) expect.fail("not acquired");
    attempt.lock.release();
    expect(existsSync(at)).toBe(false);
    const again = take(at);
    if (!again.acquired) expect.fail("not acquired");
    // Someone removed it and another took it: releasing must not remove theirs.
    await unlink(at);
    await writeFile(at, `${process.ppid}\n`);
    again.lock.release();
    expect(readFileSync(at, "utf8")).toBe(`${process.ppid}\n`);
  });

  it("is refused, never followed nor replaced, when it is a symlink (to a file, or dangling)", async () => {
    const victim = path.join(dir, "victim.txt");
    await writeFile(victim, "precious\n");
    for (const target of [victim, path.join(dir, "nowhere")]) {
      const at = lockPath();
      await symlink(target, at);
      expect(take(at)).toEqual({ acquired: false, reason: "symlink" });
      expect(readlinkSync(at)).toBe(target);
      expect(await readFile(victim, "utf8")).toBe("precious\n");
      expect(existsSync(path.join(dir, "nowhere"))).toBe(false);
    }
  });

  it("is refused when it is a directory", async () => {
    const at = lockPath();
    await mkdir(at);
    expect(take(at)).toEqual({ acquired: false, reason: "not-a-file" });
    expect(lstatSync(at).isDirectory()).toBe(true);
  });

  it("never writes through a symlink planted at its private name", async () => {
    const at = lockPath();
    const victim = path.join(dir, "planted-victim.txt");
    await writeFile(victim, "precious\n");
    await symlink(victim, `${at}.${process.pid}`);
    expect(take(at).acquired).toBe(true);
    expect(await readFile(victim, "utf8")).toBe("precious\n");
    expect(readFileSync(at, "utf8")).toBe(`${process.pid}\n`);
    expect(existsSync(`${at}.${process.pid}`)).toBe(false);
  });

  it("is not taken over while a take-over left unfinished (its .break) remains", async () => {
    const at = lockPath();
    await writeFile(at, `${DEAD_PID}\n`);
    await writeFile(`${at}.break`, `${DEAD_PID}\n`);
    expect(take(at)).toEqual({ acquired: false, reason: "busy", breaker: `${at}.break` });
    expect(readFileSync(at, "utf8")).toBe(`${DEAD_PID}\n`);
    await unlink(`${at}.break`);
    expect(take(at).acquired).toBe(true);
  });

  it("throws the system error when its directory does not exist", () => {
    expect(() => acquireFileLock(path.join(dir, "no-such-dir", "x.lock"))).toThrow(
      expect.objectContaining({ code: "ENOENT" }),
    );
  });
});

describe("waiting for a lock", () => {
  it("waits while another task of this process holds it, and takes it once let go", async () => {
    const at = lockPath();
    const first = take(at);
    if (!first.acquired) expect.fail("not acquired");
    let settled = false;
    const waiting = waitForFileLock(at, { waitMs: 20_000 }).then((attempt) => {
      settled = true;
      return attempt;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    first.lock.release();
    const second = await waiting;
    if (!second.acquired) expect.fail(`not acquired: ${second.reason}`);
    held.push(second.lock);
    expect(readFileSync(at, "utf8")).toBe(`${process.pid}\n`);
  });

  it("gives up after its wait, saying who holds it", async () => {
    const at = lockPath();
    await writeFile(at, `${process.ppid}\n`);
    expect(await waitForFileLock(at, { waitMs: 100 })).toEqual({
      acquired: false,
      reason: "held",
      pid: process.ppid,
    });
  });

  it("takes over a live process's lock older than staleAfterMs", async () => {
    const at = lockPath();
    await writeFile(at, `${process.ppid}\n`);
    const old = new Date(Date.now() - 60_000);
    await utimes(at, old, old);
    const stale: Array<number | undefined> = [];
    const attempt = await waitForFileLock(at, {
      waitMs: 100,
      staleAfterMs: 30_000,
      onStale: (p) => stale.push(p),
    });
    expect(attempt.acquired).toBe(true);
    if (attempt.acquired) held.push(attempt.lock);
    expect(stale).toEqual([process.ppid]);
  });
});
