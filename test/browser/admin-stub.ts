/**
 * TEST STUB — NOT THE PRODUCT. A stand-in for the control plane (/__admin) so
 * the home page can be tested in a browser on its own: only the endpoints the
 * page calls (health, requests with ?after= and ?limit=, faults GET and PUT, keys, clock),
 * with exactly the JSON shapes the control plane's authors and the page's agreed
 * on. It wraps the fake's request handler on one origin: /__admin/* comes here,
 * everything else goes to the fake, and the fake's /v1 answers are journaled.
 * home-page.test.ts uses it only when the fake has no control plane of its own.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { redactKey } from "../../src/profiles/redact-key.js";
import type { ApiKeySpec } from "../../src/server/keys.js";
import type { PetStore } from "../../src/server/store/types.js";

interface Entry {
  id: number;
  time: string;
  method: string;
  path: string;
  query: string;
  status: number;
  durationMs: number;
  plan: string | null;
}

interface Faults {
  latencyMs: { min: number; max: number } | null;
  failRate: number;
  failMode: string;
}

export interface AdminStub {
  handler: RequestListener;
  /** Every PUT /__admin/faults body, as received. */
  faultPuts: unknown[];
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
  });
  res.end(body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function validFaults(value: unknown): value is Faults {
  const faults = value as Faults;
  const latency = faults?.latencyMs;
  return (
    typeof faults === "object" &&
    faults !== null &&
    (latency === null ||
      (typeof latency === "object" &&
        Number.isInteger(latency.min) &&
        Number.isInteger(latency.max) &&
        latency.min >= 0 &&
        latency.min <= latency.max)) &&
    typeof faults.failRate === "number" &&
    faults.failRate >= 0 &&
    faults.failRate <= 1 &&
    ["503", "reset", "reset-after"].includes(faults.failMode)
  );
}

export function createAdminStub(
  app: RequestListener,
  store: PetStore,
  keys: readonly ApiKeySpec[],
): AdminStub {
  const started = Date.now();
  const journal: Entry[] = [];
  const used = new Map<string, number>();
  let faults: Faults = { latencyMs: { min: 0, max: 0 }, failRate: 0, failMode: "503" };
  const faultPuts: unknown[] = [];

  function record(req: IncomingMessage, res: ServerResponse, startedAt: number): void {
    const url = req.url ?? "/";
    const at = url.indexOf("?");
    const path = at === -1 ? url : url.slice(0, at);
    if (!path.startsWith("/v1/")) return;
    const presented = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const key = keys.find((spec) => spec.key === presented);
    if (key !== undefined) used.set(key.key, (used.get(key.key) ?? 0) + 1);
    journal.push({
      id: journal.length + 1,
      time: new Date().toISOString(),
      method: req.method ?? "-",
      path,
      query: at === -1 ? "" : url.slice(at + 1),
      status: res.statusCode,
      durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
      plan: key?.plan ?? null,
    });
  }

  async function admin(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const route = `${req.method} ${url.pathname}`;
    if (route === "GET /__admin/health") {
      json(res, 200, {
        status: "ok",
        pets: store.size,
        uptimeSeconds: Math.floor((Date.now() - started) / 1000),
      });
    } else if (route === "GET /__admin/requests") {
      const after = Number(url.searchParams.get("after") ?? 0);
      const limit = Number(url.searchParams.get("limit") ?? Infinity);
      const requests = journal.filter((entry) => entry.id > after).slice(0, limit);
      json(res, 200, {
        requests,
        lastId: journal.length,
        nextAfter: requests.length < journal.length - after ? (requests.at(-1)?.id ?? after) : null,
      });
    } else if (route === "GET /__admin/faults") {
      json(res, 200, faults);
    } else if (route === "PUT /__admin/faults") {
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        body = undefined;
      }
      faultPuts.push(body);
      if (!validFaults(body)) {
        json(res, 400, { code: "invalid_body", message: "not a fault setting", status: 400 });
        return;
      }
      faults = body;
      json(res, 200, faults);
    } else if (route === "GET /__admin/keys") {
      const reset = Math.ceil((Date.now() + 1) / 60_000) * 60;
      json(res, 200, {
        keys: keys.map((spec) => {
          const limit = spec.limits?.perMinute ?? 2147483647;
          return {
            key: redactKey(spec.key),
            plan: spec.plan,
            limit,
            remaining: Math.max(0, limit - (used.get(spec.key) ?? 0)),
            reset,
          };
        }),
      });
    } else if (route === "GET /__admin/clock") {
      const now = Date.now();
      json(res, 200, { now: new Date(now).toISOString(), nowMs: now, offsetSeconds: 0 });
    } else {
      json(res, 404, { code: "not_found", message: `the stub has no ${route}`, status: 404 });
    }
  }

  const handler: RequestListener = (req, res) => {
    const url = new URL(req.url ?? "/", "http://stub");
    if (url.pathname.startsWith("/__admin/")) {
      void admin(req, res, url);
      return;
    }
    const startedAt = performance.now();
    res.on("finish", () => record(req, res, startedAt));
    app(req, res);
  };
  return { handler, faultPuts };
}
