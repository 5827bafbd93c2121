/**
 * The data file replaced while serving by something that is not a regular file, or deleted:
 * the store neither blocks on it nor follows it, keeps serving and storing, and
 * closes.
 */
import { execFileSync } from "node:child_process";
import { lstat, mkdtemp, readFile, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openFileStore } from "../../../src/server/store/file-store.js";
import type { PetStore } from "../../../src/server/store/memory.js";
import { HANG_MS } from "../../limits.js";

const PETS = '[\n{"id":1,"name":"Rex","categoryId":1,"status":"available"}\n]\n';
const VICTIM = '[\n{"id":1,"name":"Secret","categoryId":1,"status":"available"}\n]\n';

let dir: string;
let file: string;
let logs: string[];
let store: PetStore | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "petstore-kinds-"));
  file = path.join(dir, "pets.json");
  logs = [];
  await writeFile(file, PETS);
  store = await openFileStore({ file, flushIntervalMs: 20, log: (line) => logs.push(line) });
});
afterEach(async () => {
  await store?.close().catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

describe("the data file replaced while serving", () => {
  it("by a FIFO: not opened for reading (which would block), and close still finishes", async () => {
    await unlink(file);
    execFileSync("mkfifo", [file]);
    await vi.waitFor(() => expect(logs.join("\n")).toContain(`${file} is now a FIFO`), {
      timeout: HANG_MS / 2,
      interval: 20,
    });
    const created = await store!.create({ name: "Kept", categoryId: 1n });
    expect(store!.getJson(created.pet.id)).toBe(created.json);
    await store!.close();
    expect((await lstat(file)).isFIFO()).toBe(true);
    expect(await readFile(`${file}.journal`, "utf8")).toBe(`{"idsUsedUpTo":1}\n${created.json}\n`);
  });

  it("by a symlink: the file it points to is neither adopted nor written", async () => {
    const victim = path.join(dir, "victim.json");
    await writeFile(victim, VICTIM);
    await unlink(file);
    await symlink(victim, file);
    await vi.waitFor(() => expect(logs.join("\n")).toContain(`${file} is now a symbolic link`), {
      timeout: HANG_MS / 2,
      interval: 20,
    });
    expect(store!.getJson(1n)).toContain('"Rex"');
    const created = await store!.create({ name: "Kept", categoryId: 1n });
    await store!.close();
    expect(await readFile(victim, "utf8")).toBe(VICTIM);
    expect((await lstat(file)).isSymbolicLink()).toBe(true);
    expect(await readFile(`${file}.journal`, "utf8")).toBe(`{"idsUsedUpTo":1}\n${created.json}\n`);
  });

  it("by nothing (deleted): written again with the pets served, new ones included", async () => {
    await unlink(file);
    const created = await store!.create({ name: "Kept", categoryId: 1n });
    await vi.waitFor(() => expect(logs.join("\n")).toContain(`${file} was deleted`), {
      timeout: HANG_MS / 2,
      interval: 20,
    });
    await store!.close();
    expect(await readFile(file, "utf8")).toBe(`[\n${PETS.split("\n")[1]!},\n${created.json}\n]\n`);
  });
});
