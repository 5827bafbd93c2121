import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOME_ASSETS } from "../../../src/server/home/assets.js";
import { REPO_ROOT } from "../cli-build.js";
import { call, startTestServer } from "../http.js";

const KEY = "psk_tiny0123456789abcdef";
/** A key allowed 2 requests a minute, so any request that costs quota shows. */
const TINY = `${KEY}:enterprise:2/100`;
const UNLIMITED = "psk_unlimited0123456789";
const BROWSER_ACCEPT =
  "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
const DIST_HOME = join(REPO_ROOT, "dist", "home");

let server: Awaited<ReturnType<typeof startTestServer>>;
let origin: string;

beforeAll(async () => {
  server = await startTestServer({ keys: [TINY, `${UNLIMITED}:enterprise`], seed: 30 });
  origin = server.url.replace(/\/v1$/, "");
});
afterAll(() => server.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  call(server.url, path, { headers });

describe("GET / without text/html: a JSON index of the links", () => {
  it.each([[{}], [{ accept: "*/*" }], [{ accept: "application/json" }], [{ accept: "image/png" }]])(
    "answers %j with JSON naming the fake's links",
    async (headers) => {
      const answer = await get("/", headers);
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe("application/json");
      expect(answer.headers.vary).toBe("Accept");
      const index = JSON.parse(answer.text) as { baseUrl: string; links: Record<string, string> };
      expect(index.baseUrl).toBe(server.url);
      expect(index.links).toMatchObject({
        api: server.url,
        openapi: `${server.url}/openapi.json`,
        pets: `${server.url}/pets`,
        adminHealth: `${origin}/__admin/health`,
        adminRequests: `${origin}/__admin/requests`,
        adminFaults: `${origin}/__admin/faults`,
      });
    },
  );

  it("names the host the client used, so its links work from where it stands", async () => {
    const answer = await get("/", { host: `localhost:${server.port}` });
    const index = JSON.parse(answer.text) as { links: Record<string, string> };
    expect(index.links.openapi).toBe(`http://localhost:${server.port}/v1/openapi.json`);
    const document = await call(index.links.openapi!, "/v1/openapi.json");
    expect(document.status).toBe(200);
  });
});

describe("GET / from a browser: the home page", () => {
  const page = async (path = "/", headers: Record<string, string> = {}) =>
    (await get(path, { accept: BROWSER_ACCEPT, ...headers })).text;
  const names = (html: string) =>
    [...html.matchAll(/<td class="name">(.*?)<\/td>/g)].map((m) => m[1]);

  it("is HTML with the base URL and the two lines for the CLI, never the key it is sent", async () => {
    const answer = await get("/", { accept: BROWSER_ACCEPT, authorization: `Bearer ${KEY}` });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(answer.headers.vary).toBe("Accept");
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.text).toContain(`<code id="base-url">${server.url}</code>`);
    expect(answer.text).toContain(
      `export PETSTORE_BASE_URL=&#39;${server.url}&#39;\nexport PETSTORE_API_KEY=&#39;&lt;your key&gt;&#39;`,
    );
    const stranger = "psk_someone_else_0123456789";
    expect(await page("/", { authorization: `Bearer ${stranger}` })).not.toContain(stranger);
  });

  it("shows the pets (the first 100), by status with ?status=, each name escaped", async () => {
    const created = await call(server.url, "/v1/pets", {
      method: "POST",
      key: UNLIMITED,
      body: JSON.stringify({ name: "<script>alert('x')</script> & co", categoryId: 2 }),
    });
    expect(created.status).toBe(201);
    const all = await page();
    expect(names(all)).toHaveLength(31);
    expect(all).not.toContain("<script>alert");
    expect(names(all)).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co");
    const sold = JSON.parse(
      (await call(server.url, "/v1/pets?status=sold&limit=100", { key: UNLIMITED })).text,
    ) as { name: string }[];
    expect(names(await page("/?status=sold"))).toEqual(sold.map((pet) => pet.name));
    expect(await page("/?status=sold")).toContain(
      `<a href="/?status=sold" role="button" aria-current="true">sold</a>`,
    );
    expect(await page("/?status=lost")).toContain(
      "status must be one of available, pending, sold; got &quot;lost&quot;",
    );
  });

  it("shows the keys in full, with their plans and quota, to whoever may use the control plane", async () => {
    const html = await page();
    expect(html).toContain(`<code>${KEY}</code>`);
    expect(html).toContain(`<code>${UNLIMITED}</code>`);
    // TINY's limit of 2 a minute, and the unlimited key's.
    expect(html).toMatch(/<td class="num" data-label="Limit">2<\/td>/);
    expect(html).toMatch(/<td class="num" data-label="Limit">unlimited<\/td>/);
    const refusals: Record<string, string>[] = [
      { host: "rebound.example" },
      { origin: "https://elsewhere.example" },
    ];
    for (const refused of refusals) {
      const html = await page("/", refused);
      expect(html).not.toContain(KEY);
      expect(html).toContain(
        '<article id="notice" data-live>The control plane (/__admin) answered: ',
      );
    }
  });

  it("shows the pets to this machine only: not to a page whose name was rebound to it", async () => {
    const html = await page("/", { host: "rebound.example" });
    expect(names(html)).toEqual([]);
    expect(html).toContain("the home page reads pets without a key for this machine only");
  });

  it("asks for the --admin-token, and shows the keys to a read that sends it", async () => {
    const token = "home-page-token-0123456789";
    const guarded = await startTestServer({ keys: [TINY], adminToken: token });
    try {
      const without = await call(guarded.url, "/", { headers: { accept: BROWSER_ACCEPT } });
      expect(without.text).not.toContain(KEY);
      expect(without.text).toContain('<form id="token">');
      const withToken = await call(guarded.url, "/", {
        headers: { accept: BROWSER_ACCEPT, authorization: `Bearer ${token}` },
      });
      expect(withToken.text).toContain(`<code>${KEY}</code>`);
      expect(withToken.text).not.toContain('<form id="token">');
    } finally {
      await guarded.close();
    }
  });

  it("allows only its own origin: no script, style, font or call from elsewhere", async () => {
    const csp = (await get("/", { accept: BROWSER_ACCEPT })).headers["content-security-policy"];
    expect(csp).toContain("default-src 'self'");
    // Scripts, styles and calls fall back to it: nothing names them to allow more.
    expect(csp).not.toMatch(/(script|style|connect)-src/);
    expect(csp).not.toMatch(/https?:|\*/);
  });

  it("loads only files the fake serves", async () => {
    const html = (await get("/", { accept: BROWSER_ACCEPT })).text;
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    const local = references.filter((ref) => !ref.startsWith("data:"));
    expect(local.length).toBeGreaterThanOrEqual(5);
    for (const ref of local) {
      expect(ref.startsWith("/")).toBe(true);
      const answer = await get(ref);
      expect(answer.status, ref).toBe(200);
    }
  });

  it("answers HEAD with the same headers and no body", async () => {
    const page = await get("/", { accept: BROWSER_ACCEPT });
    const head = await call(server.url, "/", {
      method: "HEAD",
      headers: { accept: BROWSER_ACCEPT },
    });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(head.headers["content-length"]).toBe(page.headers["content-length"]);
    expect(head.headers["content-type"]).toBe(page.headers["content-type"]);
  });

  it.each(["POST", "PUT", "DELETE"])("refuses %s with 405 and Allow: GET, HEAD", async (method) => {
    for (const path of ["/", "/__home/home.js", "/__home/pets"]) {
      const answer = await call(server.url, path, { method, body: "{}" });
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toBe("GET, HEAD");
      expect(JSON.parse(answer.text)).toMatchObject({ code: "method_not_allowed", status: 405 });
    }
  });
});

describe("outside the API: no key, no quota", () => {
  it("never asks for a key and never counts, while showing where the client stands", async () => {
    const fresh = await startTestServer({ keys: [TINY], seed: 3 });
    try {
      for (let i = 0; i < 70; i++) {
        const answer = await call(fresh.url, i % 2 === 0 ? "/" : "/__home/pets", {
          headers: { accept: i % 4 === 0 ? BROWSER_ACCEPT : "*/*" },
          key: i % 3 === 0 ? KEY : undefined,
        });
        expect(answer.status).toBe(200);
        expect(answer.headers["x-ratelimit-limit"]).toBe(i % 3 === 0 ? "2" : "60");
        expect(answer.headers["x-ratelimit-remaining"]).toBe(i % 3 === 0 ? "2" : "60");
        const css = await call(fresh.url, "/__home/home.css");
        expect(css.status).toBe(200);
        expect(css.headers["x-ratelimit-remaining"]).toBe("60");
      }
      // The key's 2 a minute, and the address's 60 a minute without a key, are untouched.
      const keyed = await call(fresh.url, "/v1/pets", { key: KEY });
      expect(keyed.status).toBe(200);
      expect(keyed.headers["x-ratelimit-remaining"]).toBe("1");
      const keyless = await call(fresh.url, "/v1/pets");
      expect(keyless.status).toBe(401);
      expect(keyless.headers["x-ratelimit-remaining"]).toBe("59");
    } finally {
      await fresh.close();
    }
  });
});

describe("the page's files", () => {
  it("are exactly the files the build puts in dist/home", () => {
    expect(readdirSync(DIST_HOME).sort()).toEqual(Object.keys(HOME_ASSETS).sort());
  });

  it.each(Object.entries(HOME_ASSETS))(
    "serves %s as %s, byte for byte, with an ETag that revalidates",
    async (name, type) => {
      const answer = await get(`/__home/${name}`);
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe(type);
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      expect(answer.headers["cache-control"]).toBe("no-cache");
      // Buffer.equals: toEqual compares megabytes byte by byte, for seconds.
      const same = Buffer.from(answer.text).equals(readFileSync(join(DIST_HOME, name)));
      expect(same, `${name} byte for byte`).toBe(true);
      const etag = answer.headers.etag!;
      expect(etag).toMatch(/^"[\w-]{27}"$/);
      const again = await get(`/__home/${name}`, { "if-none-match": etag });
      expect(again.status).toBe(304);
      expect(again.text).toBe("");
    },
  );

  it("sends the reference library gzipped to a client that accepts it", async () => {
    const answer = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      import("node:http").then(({ get: httpGet }) =>
        httpGet(
          `${origin}/__home/swagger-ui-bundle.js`,
          { headers: { "accept-encoding": "gzip, deflate, br" } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () =>
              resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }),
            );
          },
        ).on("error", reject),
      );
    });
    expect(answer.encoding).toBe("gzip");
    const original = readFileSync(join(DIST_HOME, "swagger-ui-bundle.js"));
    expect(answer.body.length).toBeLessThan(original.length / 2);
    expect(gunzipSync(answer.body).equals(original), "the same bytes, unzipped").toBe(true);
  });

  it.each([
    "/__home/",
    "/__home/nope.js",
    "/__home/../package.json",
    "/__home/%2e%2e/package.json",
    "/__home/home.js/x",
    "/__home/constructor",
    "/__home/__proto__",
  ])("answers 404 not_found for %s", async (path) => {
    const answer = await get(path);
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toMatchObject({ code: "not_found", status: 404 });
  });
});

describe("GET /__home/pets: the page's read of the pets", () => {
  it("is the same list as GET /v1/pets, for the same query", async () => {
    for (const query of ["", "?limit=100", "?status=sold&limit=100", "?status=pending"]) {
      const page = await get(`/__home/pets${query}`);
      expect(page.status).toBe(200);
      expect(page.headers["content-type"]).toBe("application/json");
      const list = await call(server.url, `/v1/pets${query}`, { key: UNLIMITED });
      expect(list.status).toBe(200);
      expect(page.text).toBe(list.text);
    }
  });

  it("serves the page the same OpenAPI document as /v1/openapi.json, with the fake first", async () => {
    const host = { host: `localhost:${server.port}` };
    const forPage = await get("/__home/openapi.json", host);
    expect(forPage.status).toBe(200);
    expect(forPage.headers["content-type"]).toBe("application/json");
    expect(forPage.text).toBe((await get("/v1/openapi.json", host)).text);
    const document = JSON.parse(forPage.text) as { servers: { url: string }[] };
    expect(document.servers[0]!.url).toBe(`http://localhost:${server.port}/v1`);
  });

  it("refuses a bad query as the API does", async () => {
    const answer = await get("/__home/pets?status=lost");
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ code: "invalid_query" });
  });

  it.each([`localhost:PORT`, `127.0.0.1:PORT`, `[::1]:PORT`, "app.localhost", "LOCALHOST."])(
    "answers a local client naming %s",
    async (host) => {
      const answer = await get("/__home/pets", { host: host.replace("PORT", String(server.port)) });
      expect(answer.status).toBe(200);
    },
  );

  it.each(["rebound.example", "127.0.0.1.rebound.example:80", "localhost.example"])(
    "refuses 403 forbidden to a page whose name %s was rebound to this machine",
    async (host) => {
      const answer = await get("/__home/pets", { host });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.text)).toMatchObject({ code: "forbidden", status: 403 });
    },
  );
});

describe("GET /__home/keys: the page's read of the keys, in full", () => {
  it("gives each key in full with the entry GET /__admin/keys gives redacted", async () => {
    const answer = await get("/__home/keys");
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/json");
    const { keys } = JSON.parse(answer.text) as { keys: { key: string }[] };
    expect(keys.map((entry) => entry.key)).toEqual([KEY, UNLIMITED]);
    const admin = await get("/__admin/keys");
    const redacted = (JSON.parse(admin.text) as { keys: { key: string }[] }).keys;
    expect(keys.map(({ key: _, ...rest }) => rest)).toEqual(
      redacted.map(({ key: _, ...rest }) => rest),
    );
    expect(admin.text).not.toContain(KEY);
  });

  it("is refused, as the control plane is, to a page of another origin", async () => {
    const answer = await get("/__home/keys", { origin: "https://elsewhere.example" });
    expect(answer.status).toBe(403);
    expect(answer.text).not.toContain(KEY);
  });

  it("needs the --admin-token when there is one", async () => {
    const token = "home-keys-token-0123456789";
    const guarded = await startTestServer({ keys: [TINY], adminToken: token });
    try {
      const without = await call(guarded.url, "/__home/keys");
      expect(without.status).toBe(401);
      expect(without.text).not.toContain(KEY);
      const withToken = await call(guarded.url, "/__home/keys", {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(withToken.status).toBe(200);
      expect(withToken.text).toContain(KEY);
    } finally {
      await guarded.close();
    }
  });
});
