/**
 * The served document's first server is the fake itself (as the client reached
 * it), before production and staging; the rest is the committed document.
 */
import { readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../scripts/openapi/document.js";
import { createApp } from "../../src/server/app.js";
import { appOptions } from "./app-options.js";
import { KeyInput } from "../../src/server/keys.js";
import { createMemoryStore } from "../../src/server/store/memory.js";
import { startServe, type ServeProcess } from "../schema/serve-process.js";
import { REPO_ROOT } from "./cli-build.js";
import { call } from "./http.js";

interface Served {
  servers: { url: string; description: string }[];
}

let serve: ServeProcess;
let port: string;

beforeAll(async () => {
  serve = await startServe();
  port = new URL(serve.baseUrl).port;
});
afterAll(() => serve.stop());

async function servers(headers: Record<string, string> = {}): Promise<Served["servers"]> {
  const answer = await call(serve.baseUrl, "/v1/openapi.json", { headers });
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.text) as Served).servers;
}

describe("GET /v1/openapi.json from petstore serve", () => {
  it("lists the fake first, then production and staging, and is otherwise the committed document", async () => {
    const answer = await call(serve.baseUrl, "/v1/openapi.json");
    const served = JSON.parse(answer.text) as Served & Record<string, unknown>;
    expect(served.servers[0]).toEqual({
      url: serve.baseUrl,
      description: "this fake (petstore serve)",
    });
    const committed = buildOpenApiDocument() as Served & Record<string, unknown>;
    expect(served.servers.slice(1)).toEqual(committed.servers);
    expect({ ...served, servers: [] }).toEqual({ ...committed, servers: [] });
  });

  it("uses the host the client asked for", async () => {
    const list = await servers({ host: `localhost:${port}` });
    expect(list[0]!.url).toBe(`http://localhost:${port}/v1`);
    expect((await servers({ host: `LocalHost:${port}` }))[0]!.url).toBe(
      `http://localhost:${port}/v1`,
    );
  });

  it.each(["evil.example/phish?", "a b", "", "host:port", '"quoted"'])(
    "falls back to the listening address for the Host %j",
    async (host) => {
      expect((await servers({ host }))[0]!.url).toBe(serve.baseUrl);
    },
  );

  it("keeps serving after many different hosts", async () => {
    for (let i = 0; i < 20; i++) {
      expect((await servers({ host: `h${i}.test:${port}` }))[0]!.url).toBe(
        `http://h${i}.test:${port}/v1`,
      );
    }
  });
});

describe("GET /v1/openapi.json over TLS", () => {
  const tls = join(REPO_ROOT, "test", "fixtures", "tls");
  let app: ReturnType<typeof createApp>;
  let server: Server;

  beforeAll(async () => {
    app = createApp(createMemoryStore([]), appOptions({ keys: [KeyInput.parse("k:pro")] }));
    server = createServer(
      {
        key: readFileSync(join(tls, "localhost.key")),
        cert: readFileSync(join(tls, "localhost.crt")),
      },
      app,
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    app.close();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  });

  it("names an https URL", async () => {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: address.port,
          path: "/v1/openapi.json",
          ca: readFileSync(join(tls, "localhost.crt")),
          servername: "localhost",
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve(body));
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect((JSON.parse(text) as Served).servers[0]!.url).toBe(
      `https://127.0.0.1:${address.port}/v1`,
    );
  });
});
