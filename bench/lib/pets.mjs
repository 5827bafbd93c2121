/**
 * Pet files in the server's format: a JSON array, one pet per line. Written with a stream so a
 * 1,000,000-pet file (~70 MB) never sits in memory. Each size is generated once per run, then
 * copied into a fresh directory for every server start (the server writes to its file).
 */
import { createWriteStream } from "node:fs";
import { copyFile, mkdtemp } from "node:fs/promises";
import { once } from "node:events";
import { join } from "node:path";

const NAMES = ["Bella", "Max", "Luna", "Charlie", "Lucy", "Cooper", "Daisy", "Rocky", "Molly"];
const CATEGORY_COUNT = 7;

function statusOf(id) {
  const bucket = Math.imul(id, 2654435761) >>> 0;
  const tenth = bucket % 10;
  return tenth < 6 ? "available" : tenth < 8 ? "pending" : "sold";
}

/** The canonical JSON of the generated pet with this id (same field order as the server). */
export function petJson(id) {
  const name = NAMES[id % NAMES.length];
  const categoryId = (id % CATEGORY_COUNT) + 1;
  return `{"id":${id},"name":"${name}","categoryId":${categoryId},"status":"${statusOf(id)}"}`;
}

/** The first `limit` generated pets with this status, as a JSON array (a list page). */
export function listPageJson(status, limit) {
  const pets = [];
  for (let id = 1; pets.length < limit; id++) {
    if (statusOf(id) === status) pets.push(petJson(id));
  }
  return `[${pets.join(",")}]`;
}

export async function writePetFile(path, count) {
  const out = createWriteStream(path);
  const linesPerChunk = 2_000;
  out.write("[\n");
  for (let first = 1; first <= count; first += linesPerChunk) {
    const last = Math.min(count, first + linesPerChunk - 1);
    let chunk = "";
    for (let id = first; id <= last; id++) {
      chunk += petJson(id) + (id < count ? ",\n" : "\n");
    }
    if (!out.write(chunk)) await once(out, "drain");
  }
  out.end("]\n");
  await once(out, "finish");
}

export function createPetFiles(tmpDir) {
  const masters = new Map();
  const master = (count) => {
    if (!masters.has(count)) {
      const path = join(tmpDir, `pets-${count}.json`);
      masters.set(
        count,
        writePetFile(path, count).then(() => path),
      );
    }
    return masters.get(count);
  };
  return {
    /** A fresh copy of a `count`-pet file, alone in a new directory. */
    async fresh(count) {
      const source = await master(count);
      const dir = await mkdtemp(join(tmpDir, `store-${count}-`));
      const path = join(dir, "pets.json");
      await copyFile(source, path);
      return path;
    },
  };
}
