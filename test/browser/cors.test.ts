/**
 * CORS in a real browser: a page served from another origin (its own node:http
 * server on another port) lists, adds and gets pets with a bearer key through
 * fetch() against a real `petstore serve`, and reads the rate-limit headers.
 * With --no-cors, or --cors naming another origin, the browser blocks it.
 */
import { createServer, type Server } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../server/cli-build.js";
import { killServes, startServe } from "../server/serve-process.js";
import { launchChromium } from "./chromium.js";

const KEY = "browser-key";

/** The app under test: plain fetch() calls, as a front-end would make them. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>pets</title></head><body>
<script type="module">
const params = new URLSearchParams(location.search);
const base = params.get("base");
const auth = { Authorization: "Bearer " + params.get("key") };
const remaining = (response) => response.headers.get("X-RateLimit-Remaining");
async function run() {
  const list = await fetch(base + "/pets?limit=100", { headers: auth });
  const listed = { status: list.status, remaining: remaining(list),
    limit: list.headers.get("X-RateLimit-Limit"), names: (await list.json()).map((p) => p.name) };
  const add = await fetch(base + "/pets", { method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Browser Cat", categoryId: 2, status: "pending" }) });
  const created = await add.json();
  const added = { status: add.status, remaining: remaining(add), location: add.headers.get("Location"), pet: created };
  const get = await fetch(new URL(added.location, base), { headers: auth });
  const got = { status: get.status, remaining: remaining(get), pet: await get.json(),
    deprecation: get.headers.get("Deprecation"), link: get.headers.get("Link") };
  const anonymous = await fetch(base + "/pets");
  const refused = { status: anonymous.status, body: await anonymous.json(), remaining: remaining(anonymous) };
  return { origin: location.origin, listed, added, got, refused };
}
window.results = run().catch((error) => ({ origin: location.origin, error: String(error) }));
</script></body></html>`;

interface PageResults {
  origin: string;
  error?: string;
  listed: { status: number; remaining: string; limit: string; names: string[] };
  added: { status: number; remaining: string; location: string; pet: { id: number; name: string } };
  got: {
    status: number;
    remaining: string;
    pet: { id: number; name: string; status: string };
    deprecation: string;
    link: string;
  };
  refused: { status: number; body: { code: string }; remaining: string };
}

let dir: string;
let browser: Browser;
let pageServer: Server;
let pageOrigin: string;
/** The access log of the last serve `runPage` ran. */
let log = "";

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "petstore-cors-browser-"));
  pageServer = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  const address = pageServer.address();
  pageOrigin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  browser = await launchChromium();
});
afterEach(killServes);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => pageServer?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Starts serve with `flags`, opens the page against it, and returns what the page found. */
async function runPage(name: string, flags: string[]) {
  const serve = await startServe(
    [
      "--file",
      join(dir, `${name}.json`),
      "--port",
      "0",
      "--seed",
      "3",
      "--key",
      `${KEY}:pro`,
      ...flags,
    ],
    { cwd: dir },
  );
  const base = serve.lines[0]!;
  expect(new URL(base).origin).not.toBe(pageOrigin);
  const page = await browser.newPage();
  try {
    await page.goto(`${pageOrigin}/?base=${encodeURIComponent(base)}&key=${KEY}`);
    const results = (await page.evaluate("window.results")) as PageResults;
    return results;
  } finally {
    await page.close();
    // Stopped, serve flushes its access log: what it answered is all on stderr.
    serve.child.kill("SIGTERM");
    await serve.exited;
    log = serve.stderr();
  }
}

describe("a page on another origin", () => {
  it("lists, adds and gets pets with a bearer key and reads X-RateLimit-Remaining", async () => {
    const results = await runPage("default", []);
    expect(results.error).toBeUndefined();
    expect(results.origin).toBe(pageOrigin);
    expect(results.listed.status).toBe(200);
    expect(results.listed.names).toHaveLength(3);
    expect(results.listed.limit).toBe("300");
    expect(results.listed.remaining).toBe("299");
    expect(results.added.status).toBe(201);
    expect(results.added.location).toBe(`/v1/pets/${results.added.pet.id}`);
    expect(Number(results.added.remaining)).toBeLessThan(300);
    expect(results.got.status).toBe(200);
    expect(results.got.pet).toMatchObject({
      id: results.added.pet.id,
      name: "Browser Cat",
      status: "pending",
    });
    expect(results.got.deprecation).toBe("@1735689600");
    expect(results.got.link).toContain("successor-version");
    expect(results.refused).toMatchObject({ status: 401, body: { code: "unauthorized" } });
    // The browser preflighted the three calls with the key (no key on a preflight: counted, they
    // would be counted against the address); the plain GET without a key is the address's first.
    expect(results.refused.remaining).toBe("59");
    expect(log).toMatch(/OPTIONS \/v1\/pets 204 /);
    expect(log).toMatch(/POST \/v1\/pets 201 /);
  });

  it("works with --cors naming the page's origin", async () => {
    const results = await runPage("allowed", ["--cors", `http://example.test,${pageOrigin}`]);
    expect(results.error).toBeUndefined();
    expect(results.got.status).toBe(200);
  });

  it.each([
    ["--no-cors", ["--no-cors"]],
    ["--cors naming another origin", ["--cors", "http://localhost:5173"]],
  ])("is blocked by the browser with %s", async (name, flags) => {
    const results = await runPage(name.replace(/\W+/g, "-"), flags);
    expect(results.error).toMatch(/TypeError: Failed to fetch/);
    expect(results.listed).toBeUndefined();
    // serve did answer; the browser withheld the answer from the page.
    expect(log).toMatch(/(OPTIONS|GET) \/v1\/pets (204|401) /);
  });
});
