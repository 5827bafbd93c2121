/**
 * GET /__admin/requests at the size that took the fake down (issue 19): a journal
 * of 1,400 POST bodies of 64 KiB of control characters, each escaped to six
 * characters in JSON. Read as one string, that passed V8's limit and killed the
 * process; now each answer is a page of about 1 MiB, and paging reads them all.
 */
import { Agent, request } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  BODY_BUDGET,
  MAX_BODY_KEPT,
  PAGE_BYTES,
} from "../../../src/server/admin/request-journal.js";
import { ensureBuilt } from "../cli-build.js";
import { call, startTestServer } from "../http.js";
import { killServes, startServe } from "../serve-process.js";

let dir: string;

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "petstore-journal-size-"));
});
afterAll(async () => {
  killServes();
  await rm(dir, { recursive: true, force: true });
});

const BODY = Buffer.alloc(64 * 1024, 0x01);

/** POSTs `count` copies of BODY, eight at a time over kept-alive connections. */
async function postBodies(url: string, count: number): Promise<void> {
  const { hostname, port } = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const one = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: hostname,
          port,
          agent,
          method: "POST",
          path: "/v1/pets",
          headers: { authorization: "Bearer k", "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode!));
        },
      );
      req.on("error", reject);
      req.end(BODY);
    });
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      expect(await one()).toBe(400);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  agent.destroy();
}

interface Page {
  requests: { id: number; body: string; bodyBytes: number; bodyTruncated: boolean }[];
  journalSize: number;
  lastId: number;
  nextAfter: number | null;
}

async function readPage(url: string, query: string): Promise<{ page: Page; bytes: number }> {
  const answer = await call(url, `/__admin/requests${query}`);
  expect(answer.status, answer.text.slice(0, 200)).toBe(200);
  return { page: JSON.parse(answer.text) as Page, bytes: Buffer.byteLength(answer.text) };
}

it("pages a journal of 1,400 bodies of 64 KiB of control characters, and stays up", async () => {
  const serve = await startServe(
    ["--file", join(dir, "pets.json"), "--port", "0", "--key", "k:enterprise", "--quiet"].concat([
      "--journal-size",
      "1400",
    ]),
    { cwd: dir },
  );
  const url = serve.lines[0]!;
  await postBodies(url, 1400);

  const kept = Math.floor(BODY_BUDGET / 1400);
  const seen: number[] = [];
  let query = "";
  for (;;) {
    const { page, bytes } = await readPage(url, query);
    expect(page.journalSize).toBe(1400);
    expect(page.lastId).toBe(1400);
    // About a megabyte: never more than the page plus the one entry that passed it.
    expect(bytes).toBeLessThanOrEqual(PAGE_BYTES + 6 * kept + 1000);
    for (const entry of page.requests) {
      seen.push(entry.id);
      expect(entry.body).toBe("\u0001".repeat(kept));
      expect(entry.bodyBytes).toBe(BODY.length);
      expect(entry.bodyTruncated).toBe(true);
    }
    if (page.nextAfter === null) break;
    expect(page.nextAfter).toBe(seen.at(-1));
    query = `?after=${page.nextAfter}`;
  }
  expect(seen).toEqual(Array.from({ length: 1400 }, (_, i) => i + 1));
  expect((await call(url, "/__admin/health")).status).toBe(200);
  serve.child.kill("SIGTERM");
  expect((await serve.exited).code).toBe(0);
}, 180_000);

it("keeps a read at the default size to about a megabyte, bodies cut at 64 KiB", async () => {
  const server = await startTestServer({ keys: ["k:enterprise"] });
  try {
    await postBodies(server.url, 1000);
    const { page, bytes } = await readPage(server.url, "");
    expect(bytes).toBeLessThanOrEqual(PAGE_BYTES + 6 * MAX_BODY_KEPT + 1000);
    expect(page.requests.length).toBeGreaterThan(0);
    expect(page.requests[0]!.body).toHaveLength(MAX_BODY_KEPT);
    expect(page.nextAfter).toBe(page.requests.at(-1)!.id);
    // A later page, and `limit`; the library reads all of them at once.
    const { page: limited } = await readPage(server.url, `?after=990&limit=1`);
    expect(limited.requests.map((entry) => entry.id)).toEqual([991]);
    expect(limited.nextAfter).toBe(991);
    const { page: last } = await readPage(server.url, `?after=998`);
    expect(last.requests.map((entry) => entry.id)).toEqual([999, 1000]);
    expect(last.nextAfter).toBeNull();
    expect(server.requests().map((entry) => entry.id)).toHaveLength(1000);
    expect(server.requests({ after: 995, limit: 2 }).map((entry) => entry.id)).toEqual([996, 997]);
  } finally {
    await server.close();
  }
}, 120_000);
