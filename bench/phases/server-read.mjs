/**
 * Read throughput of `petstore serve` against the ceiling: a bare node:http server answering
 * the very bytes serve answers, its headers and body. Rounds alternate which server goes first, so drift on this
 * noisy machine falls on both; the figures are medians over the rounds. A second pair of loads
 * sends `Origin`, as browser code does, so serve's answers carry the CORS headers, and the
 * ceiling answers with those same bytes.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { request } from "../lib/http.mjs";
import { describeLoadTool, runLoad } from "../lib/load.mjs";
import { startProcess, stopProcess, cpuSeconds } from "../lib/processes.mjs";
import { measured, notAvailable } from "../lib/report.mjs";
import { authHeaders } from "../lib/serve.mjs";
import { listPageJson, petJson } from "../lib/pets.mjs";
import { median } from "../lib/stats.mjs";

export const name = "server-read";
export const summary =
  "GET list and GET by id req/s, petstore serve (also with CORS headers on) vs a bare node:http ceiling";

const STORE_SIZE = 10_000;
const CONNECTIONS = 32;
const LIST_QUERY = "/pets?status=available&limit=20";
const GOAL = { on: "ratio", op: ">=", value: 0.85 };
/** The page origin of the CORS load: any origin is allowed by default, and answered with itself. */
const BROWSER_ORIGIN = "http://localhost:5173";

const ENDPOINTS = [
  {
    key: "list",
    measurement: `serve GET /v1/pets?status=available&limit=20 (${STORE_SIZE.toLocaleString("en-US")} pets)`,
    path: (basePath) => `${basePath}${LIST_QUERY}`,
  },
  {
    key: "byId",
    measurement: `serve GET /v1/pets/{id}, ids spread over ${STORE_SIZE.toLocaleString("en-US")} pets`,
    path: (basePath) => `${basePath}/pets/{id}`,
    ids: [1, STORE_SIZE],
  },
];

async function startCeiling(tmp, answers) {
  const file = join(tmp, "ceiling-answers.json");
  const encoded = (answer) => ({ ...answer, body: answer.body.toString("base64") });
  const names = ["list", "pet", "listCors", "petCors"];
  await writeFile(
    file,
    JSON.stringify(Object.fromEntries(names.map((n) => [n, encoded(answers[n])]))),
  );
  const script = new URL("../fixtures/ceiling-server.mjs", import.meta.url).pathname;
  const started = await startProcess(process.execPath, [script, file], {
    readyPattern: /http:\/\/127\.0\.0\.1:\d+\/v1/,
    timeoutMs: 10_000,
  });
  const baseUrl = started.match[0];
  return {
    pid: started.child.pid,
    origin: new URL(baseUrl).origin,
    basePath: "/v1",
    stop: () => stopProcess(started.child, 5_000),
  };
}

/** Headers node:http writes itself on every answer, the ceiling's too. */
const OWN_HEADERS = new Set(["date", "connection", "keep-alive"]);

/** An answer's headers as a flat [name, value, ...] list, without node:http's own. */
function headersOf(answer) {
  const flat = [];
  for (let i = 0; i < answer.rawHeaders.length; i += 2) {
    const name = answer.rawHeaders[i];
    if (!OWN_HEADERS.has(name.toLowerCase())) flat.push(name, answer.rawHeaders[i + 1]);
  }
  return flat;
}

/**
 * The answers serve gives, headers and body, without and with `Origin`, so the ceiling sends
 * the same bytes; generated (with the content headers only) when serve is absent.
 */
async function answersFrom(server) {
  if (!server) {
    const plain = (body) => ({
      headers: ["Content-Type", "application/json", "Content-Length", String(body.length)],
      body: Buffer.from(body),
    });
    const [list, pet] = [plain(listPageJson("available", 20)), plain(petJson(1))];
    return { list, pet, listCors: list, petCors: pet };
  }
  const answer = async (path, origin) => {
    const headers = { ...authHeaders(), ...(origin && { origin: BROWSER_ORIGIN }) };
    const got = await request("GET", `${server.baseUrl}${path}`, { headers });
    if (got.status !== 200) throw new Error(`serve answered ${got.status} to ${path}`);
    return { headers: headersOf(got), body: got.body };
  };
  const list = await answer(LIST_QUERY);
  const page = JSON.parse(list.body.toString("utf8"));
  if (!Array.isArray(page) || page.length !== 20) {
    throw new Error(
      `the list page is not an array of 20 pets: ${list.body.toString("utf8").slice(0, 80)}`,
    );
  }
  const [pet, listCors, petCors] = await Promise.all([
    answer("/pets/1"),
    answer(LIST_QUERY, true),
    answer("/pets/1", true),
  ]);
  return { list, pet, listCors, petCors };
}

/** Whether serve grants `BROWSER_ORIGIN` (an older serve has no CORS): the reason when not. */
async function corsRefusal(server) {
  const answer = await request("GET", `${server.baseUrl}/pets/1`, {
    headers: { ...authHeaders(), origin: BROWSER_ORIGIN },
  });
  const granted = answer.headers["access-control-allow-origin"];
  return answer.status === 200 && granted === BROWSER_ORIGIN
    ? undefined
    : `serve answered ${answer.status} with Access-Control-Allow-Origin ${granted ?? "(none)"} to a request with Origin`;
}

async function loadWithCpu(target, endpoint, seconds, scratchDir) {
  const cpuBefore = await cpuSeconds(target.pid);
  const result = await runLoad({
    origin: target.origin,
    path: endpoint.path(target.basePath),
    ids: endpoint.ids,
    headers: { ...authHeaders(), ...target.headers },
    connections: CONNECTIONS,
    seconds,
    scratchDir,
  });
  const cpuAfter = await cpuSeconds(target.pid);
  const cpu = cpuAfter - cpuBefore;
  return {
    ...result,
    serverCpu: cpu / result.seconds,
    cpuUsPerRequest: (cpu * 1e6) / Math.max(1, result.requests),
  };
}

const percent = (fraction) => `${Math.round(fraction * 100)}%`;

export async function run(ctx) {
  const { settings, tmp } = ctx;
  const serveState = await ctx.serve.available();
  const server = serveState.ok
    ? await ctx.serve.start(await ctx.pets.fresh(STORE_SIZE))
    : undefined;
  let ceiling;
  try {
    ceiling = await startCeiling(tmp, await answersFrom(server));
    const corsNotOn = server && (await corsRefusal(server));
    const origin = { origin: BROWSER_ORIGIN };
    const withCors = server && !corsNotOn ? { ...server, headers: origin } : undefined;
    const ceilingCors = withCors && { ...ceiling, headers: origin };
    const targets = [ceiling, server, ceilingCors, withCors].filter(Boolean);
    const labels = new Map([
      [ceiling, "ceiling"],
      [server, "serve"],
      [ceilingCors, "ceiling with Origin"],
      [withCors, "serve with Origin"],
    ]);
    const label = (target) => labels.get(target);
    ctx.log(`load tool: ${describeLoadTool(CONNECTIONS)}`);

    for (const endpoint of ENDPOINTS) {
      for (const target of targets)
        await loadWithCpu(target, endpoint, settings.warmupSeconds, tmp);
    }
    const samples = new Map(targets.map((target) => [target, { list: [], byId: [] }]));
    for (let round = 0; round < settings.readRounds; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const endpoint of ENDPOINTS) {
        for (const target of order) {
          ctx.log(`round ${round + 1}: ${endpoint.key} on ${label(target)}`);
          const result = await loadWithCpu(target, endpoint, settings.loadSeconds, tmp);
          samples.get(target)[endpoint.key].push(result);
        }
      }
    }

    for (const endpoint of ENDPOINTS) {
      const ceilingRuns = samples.get(ceiling)[endpoint.key];
      const ceilingRps = median(ceilingRuns.map((run) => run.rps));
      const loaderNote =
        ceilingRuns[0].loaderCpu === undefined
          ? []
          : [
              `ceiling: server CPU ${percent(median(ceilingRuns.map((r) => r.serverCpu)))}, load tool CPU ${percent(median(ceilingRuns.map((r) => r.loaderCpu)))} (near 100% means the tool, not the server, set the ceiling)`,
            ];
      if (!server) {
        ctx.record(
          notAvailable({
            phase: name,
            measurement: endpoint.measurement,
            unit: "req/s",
            goal: GOAL,
            reason: `${serveState.reason}; the ceiling alone ran at ${Math.round(ceilingRps)} req/s`,
          }),
        );
        ctx.detail(endpoint.key, { ceiling: ceilingRuns });
        continue;
      }
      const serveRuns = samples.get(server)[endpoint.key];
      const non2xx = serveRuns.reduce((sum, run) => sum + run.non2xx, 0);
      const errors = serveRuns.reduce((sum, run) => sum + run.errors, 0);
      const roundRatios = serveRuns.map((run, i) => (run.rps / ceilingRuns[i].rps).toFixed(2));
      const notes = [
        `serve: p50 ${median(serveRuns.map((r) => r.p50Ms))} ms, p99 ${median(serveRuns.map((r) => r.p99Ms))} ms, server CPU ${percent(median(serveRuns.map((r) => r.serverCpu)))}; ratio per round ${roundRatios.join(", ")}`,
        ...loaderNote,
      ];
      if (non2xx + errors > 0)
        notes.push(
          `serve: ${non2xx} non-2xx responses and ${errors} socket errors (not counted in req/s)`,
        );
      ctx.record(
        measured({
          phase: name,
          measurement: endpoint.measurement,
          figure: median(serveRuns.map((run) => run.rps)),
          unit: "req/s",
          baseline: ceilingRps,
          baselineLabel: "ceiling",
          goal: GOAL,
          notes,
        }),
      );
      ctx.record(
        measured({
          phase: name,
          measurement: `serve CPU per ${endpoint.key === "list" ? "list" : "by-id"} request vs ceiling`,
          figure: median(serveRuns.map((run) => run.cpuUsPerRequest)),
          unit: "us",
          baseline: median(ceilingRuns.map((run) => run.cpuUsPerRequest)),
          baselineLabel: "ceiling",
          notes: ["server CPU time (/proc) over requests: steadier than req/s on a shared machine"],
        }),
      );
      recordCors(
        ctx,
        endpoint,
        ceilingCors && samples.get(ceilingCors)[endpoint.key],
        serveRuns,
        withCors && samples.get(withCors)[endpoint.key],
        corsNotOn,
      );
      ctx.detail(endpoint.key, {
        ceiling: ceilingRuns,
        serve: serveRuns,
        ...(withCors && {
          ceilingWithOrigin: samples.get(ceilingCors)[endpoint.key],
          serveWithOrigin: samples.get(withCors)[endpoint.key],
        }),
        serveCommand: server.commandLine,
      });
    }
  } finally {
    await ceiling?.stop();
    await server?.stop();
  }
}

/**
 * The row for reads with CORS headers on: the same serve and ceiling, requests carrying Origin;
 * `ceilingRuns` are the ceiling's, sending serve's CORS headers too.
 */
function recordCors(ctx, endpoint, ceilingRuns, serveRuns, corsRuns, refusal) {
  const measurement = `${endpoint.measurement}, with Origin (CORS headers on)`;
  if (!corsRuns) {
    ctx.record(
      notAvailable({ phase: name, measurement, unit: "req/s", goal: GOAL, reason: refusal }),
    );
    return;
  }
  const perRound = corsRuns.map((run, i) => (run.rps / ceilingRuns[i].rps).toFixed(2));
  const vsPlain = median(corsRuns.map((run) => run.rps)) / median(serveRuns.map((run) => run.rps));
  const notes = [
    `serve with Origin: p50 ${median(corsRuns.map((r) => r.p50Ms))} ms, p99 ${median(corsRuns.map((r) => r.p99Ms))} ms, CPU ${Math.round(median(corsRuns.map((r) => r.cpuUsPerRequest)))} us/request; ratio per round ${perRound.join(", ")}; ${vsPlain.toFixed(2)}x serve without Origin`,
  ];
  const failures = corsRuns.reduce((sum, run) => sum + run.non2xx + run.errors, 0);
  if (failures > 0) notes.push(`serve with Origin: ${failures} non-2xx responses or socket errors`);
  ctx.record(
    measured({
      phase: name,
      measurement,
      figure: median(corsRuns.map((run) => run.rps)),
      unit: "req/s",
      baseline: median(ceilingRuns.map((run) => run.rps)),
      baselineLabel: "ceiling with Origin",
      goal: GOAL,
      notes,
    }),
  );
  ctx.record(
    measured({
      phase: name,
      measurement: `serve CPU per ${endpoint.key === "list" ? "list" : "by-id"} request, with Origin vs without`,
      figure: median(corsRuns.map((run) => run.cpuUsPerRequest)),
      unit: "us",
      baseline: median(serveRuns.map((run) => run.cpuUsPerRequest)),
      baselineLabel: "without Origin",
      notes: ["server CPU time (/proc) over requests: steadier than req/s on a shared machine"],
    }),
  );
}
