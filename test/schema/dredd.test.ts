/**
 * dredd (14.1.0, the last release) on the document as `petstore serve` serves it,
 * with no hooks: it builds each request from the document's examples, sends it to
 * the fake with an API key header and checks the answer against the document.
 *
 * dredd skips non-2xx responses for OpenAPI 2 but not for OpenAPI 3
 * (apiaryio/dredd#1257, never fixed): it would send the very request of the 200
 * again and expect a 401, 429 or 507 from it. The 2xx transactions are chosen
 * with `--only`, a command-line option, which is what dredd does by default for
 * OpenAPI 2.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../server/cli-build.js";
import { call } from "../server/http.js";
import { operations, type Node } from "./openapi-walk.js";
import { SERVE_KEY, startServe, type ServeProcess } from "./serve-process.js";

const DREDD = join(REPO_ROOT, "node_modules", "dredd", "bin", "dredd");
const DREDD_TIMEOUT_MS = 25_000;

let serve: ServeProcess;
let successNames: string[];

beforeAll(async () => {
  serve = await startServe(["--seed", "5"]);
  const doc = JSON.parse((await call(serve.baseUrl, "/v1/openapi.json")).text) as Node;
  // dredd's transaction names: path > summary > status > media type.
  successNames = operations(doc).flatMap(({ path, operation }) =>
    Object.keys(operation.responses as Node)
      .filter((status) => status.startsWith("2"))
      .map((status) => `${path} > ${String(operation.summary)} > ${status} > application/json`),
  );
});
afterAll(() => serve.stop());

function runDredd(endpoint: string, only: string[]): Promise<{ code: number | null; out: string }> {
  const args = [
    DREDD,
    `${serve.baseUrl}/openapi.json`,
    endpoint,
    "--header",
    `Authorization: Bearer ${SERVE_KEY}`,
    "--no-color",
    ...only.flatMap((name) => ["--only", name]),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: serve.dir,
      env: { PATH: process.env.PATH },
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), DREDD_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe("dredd on the served document", () => {
  it("passes every success transaction against petstore serve", async () => {
    expect(successNames).toHaveLength(3);
    const { code, out } = await runDredd(serve.baseUrl, successNames);
    expect(out).toMatch(/complete: 3 passing, 0 failing, 0 errors, \d+ skipped/);
    expect(out).toContain("pass: GET (200) /pets?limit=20&status=available");
    expect(out).toContain("pass: POST (201) /pets");
    expect(out).toContain("pass: GET (200) /pets/1");
    expect(code, out).toBe(0);
  });

  describe("against a server that breaks the contract", () => {
    let broken: Server;
    let brokenUrl: string;
    beforeAll(async () => {
      // Every header the document requires, but pets without a name or categoryId.
      broken = createServer((_req, res) => {
        res.writeHead(200, {
          "content-type": "application/json",
          "x-ratelimit-limit": "60",
          "x-ratelimit-remaining": "59",
          "x-ratelimit-reset": "1767225660",
        });
        res.end('[{"id":1}]');
      });
      await new Promise<void>((resolve) => broken.listen(0, "127.0.0.1", resolve));
      const address = broken.address();
      if (address === null || typeof address === "string") throw new Error("no port");
      brokenUrl = `http://127.0.0.1:${address.port}/v1`;
    });
    afterAll(() => new Promise<void>((resolve) => broken.close(() => resolve())));

    it("fails, so the passing run above means something", async () => {
      const { code, out } = await runDredd(brokenUrl, [successNames[0]!]);
      expect(out).toMatch(/complete: 0 passing, 1 failing/);
      expect(code).not.toBe(0);
    });
  });
});
