/**
 * What one read of `GET /__admin/requests` costs serve when the journal is full of big bodies:
 * POST bodies of 64 KiB of control characters (each becomes six characters in JSON), as many as
 * the journal holds, at the default size (1,000) and at --journal-size 1400. Measured per size: the
 * growth of serve's peak RSS during one read (VmHWM after the read, the peak first reset to the
 * current RSS through /proc/<pid>/clear_refs), the answer's bytes and time, and the time to page
 * through the whole journal (following nextAfter). Goal: one read grows the peak by at most 64 MiB.
 */
import { writeFile } from "node:fs/promises";
import { Agent, request as httpRequest } from "node:http";
import { request } from "../lib/http.mjs";
import { peakRssKiB, rssKiB } from "../lib/processes.mjs";
import { measured, notAvailable } from "../lib/report.mjs";
import { authHeaders } from "../lib/serve.mjs";

export const name = "journal-read";
export const summary =
  "serve's peak RSS growth during one GET /__admin/requests of a journal of 64 KiB bodies";

const BODY = Buffer.alloc(64 * 1024, 0x01);
const SIZES = [1000, 1400];
const GOAL = { on: "figure", op: "<=", value: 64 * 1024 };

async function fill(target, count) {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const url = new URL(`${target.baseUrl}/pets`);
  const one = () =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: "POST",
          agent,
          headers: { ...authHeaders(), "content-type": "application/json" },
        },
        (res) => res.resume().on("end", resolve),
      );
      req.on("error", reject);
      req.end(BODY);
    });
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      sent++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  agent.destroy();
}

async function readJournal(target, query = "") {
  const started = performance.now();
  const answer = await request("GET", `${target.origin}/__admin/requests${query}`, {
    timeoutMs: 120_000,
  });
  const ms = performance.now() - started;
  if (answer.status !== 200) throw new Error(`GET /__admin/requests answered ${answer.status}`);
  return { page: JSON.parse(answer.body.toString("utf8")), bytes: answer.body.length, ms };
}

async function measureSize(ctx, size) {
  const file = await ctx.pets.fresh(10);
  const target = await ctx.serve.start(file, { extra: ["--journal-size", String(size)] });
  try {
    ctx.log(`--journal-size ${size}: ${size} POSTs of 64 KiB of control characters`);
    await fill(target, size);
    const before = await rssKiB(target.pid);
    let peakReset = true;
    try {
      await writeFile(`/proc/${target.pid}/clear_refs`, "5");
    } catch {
      peakReset = false;
    }
    const hwmBefore = await peakRssKiB(target.pid);
    const first = await readJournal(target);
    const growth = (await peakRssKiB(target.pid)) - (peakReset ? before : hwmBefore);
    const started = performance.now();
    let pages = 1;
    let entries = first.page.requests.length;
    let next = first.page.nextAfter;
    while (next !== null && next !== undefined) {
      const { page } = await readJournal(target, `?after=${next}`);
      pages++;
      entries += page.requests.length;
      next = page.nextAfter;
    }
    const allMs = first.ms + (performance.now() - started);
    ctx.record(
      measured({
        phase: name,
        measurement: `one read of a journal of ${size} bodies of 64 KiB: peak RSS growth`,
        figure: growth,
        unit: "KiB",
        baseline: before,
        baselineLabel: "RSS before the read",
        goal: GOAL,
        notes: [
          `answer ${(first.bytes / 1e6).toFixed(2)} MB in ${first.ms.toFixed(0)} ms, ${first.page.requests.length} requests`,
          `the whole journal: ${entries} requests in ${pages} pages, ${(allMs / 1000).toFixed(1)} s`,
          ...(peakReset
            ? []
            : ["peak not reset (clear_refs refused): growth over the earlier peak"]),
        ],
      }),
    );
  } finally {
    await target.stop();
  }
}

export async function run(ctx) {
  const serveState = await ctx.serve.available();
  if (!serveState.ok) {
    ctx.record(
      notAvailable({
        phase: name,
        measurement: "one read of the request journal: peak RSS growth",
        unit: "KiB",
        goal: GOAL,
        reason: serveState.reason,
      }),
    );
    return;
  }
  for (const size of SIZES) await measureSize(ctx, size);
}
