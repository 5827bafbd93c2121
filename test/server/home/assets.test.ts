import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAssetStore, findAssetDirectory } from "../../../src/server/home/assets.js";
import { isLocalRequest } from "../../../src/server/home/local-request.js";
import { createApp } from "../../../src/server/app.js";
import { createHomeRoute, type HomeOptions } from "../../../src/server/home/route.js";
import { createMemoryStore } from "../../../src/server/store/memory.js";
import { appOptions } from "../app-options.js";
import { call } from "../http.js";

describe("finding dist/home from the module that serves it", () => {
  let work: string;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), "petstore-home-assets-"));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  function layout(...files: string[]): void {
    for (const file of files) {
      mkdirSync(join(work, file, ".."), { recursive: true });
      writeFileSync(join(work, file), "");
    }
  }

  it("finds it beside a bundle in dist/, in dist/chunks/, and from the sources", () => {
    layout(
      "dist/home/swagger-ui-bundle.js",
      "dist/chunks/x.js",
      "src/server/home/route.ts",
      "src/server/home/home.js",
    );
    const expected = join(work, "dist", "home");
    expect(findAssetDirectory(join(work, "dist"))).toBe(expected);
    expect(findAssetDirectory(join(work, "dist", "chunks"))).toBe(expected);
    expect(findAssetDirectory(join(work, "src", "server", "home"))).toBe(expected);
  });

  it("finds nothing where the build has not run", () => {
    layout("dist/index.js", "dist/home/home.js");
    expect(findAssetDirectory(join(work, "dist"))).toBeUndefined();
  });

  it("reads each file once and refuses names it does not serve", () => {
    const reads: string[] = [];
    const assets = createAssetStore((name) => {
      reads.push(name);
      return Buffer.from(`contents of ${name}`);
    });
    expect(assets("home.js")?.bytes.toString()).toBe("contents of home.js");
    expect(assets("home.js")?.etag).toBe(assets("home.js")?.etag);
    expect(assets("../package.json")).toBeUndefined();
    expect(assets("toString")).toBeUndefined();
    expect(reads).toEqual(["home.js"]);
  });
});

describe("a page whose files are missing or unreadable", () => {
  let server: Server;
  let base: string;
  const list: HomeOptions["list"] = () => ({ status: 200, body: "[]" });
  const openApi: HomeOptions["openApi"] = () => "{}";
  const { fake } = createApp(createMemoryStore([]), appOptions({ keys: [] }));
  const admin = { fake, access: { mode: "open" } } as const;

  async function serve(options: HomeOptions): Promise<void> {
    const route = createHomeRoute(options);
    server = createServer((req, res) => {
      if (route(req, res, (req.url ?? "/").split("?")[0]!) === undefined) res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers 500 internal_error saying how to make them, and still serves the page", async () => {
    await serve({
      list,
      openApi,
      ...admin,
      readAsset: () => {
        throw new Error("the home page's files (dist/home/) are missing");
      },
    });
    const answer = await call(base, "/__home/home.js");
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text)).toEqual({
      code: "internal_error",
      message: "the home page's files (dist/home/) are missing",
      status: 500,
    });
    expect((await call(base, "/", { headers: { accept: "text/html" } })).status).toBe(200);
  });

  it("answers 500 naming the file and the error code when a read fails", async () => {
    await serve({
      list,
      openApi,
      ...admin,
      readAsset: () => {
        throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
      },
    });
    const answer = await call(base, "/__home/home.css");
    expect(answer.status).toBe(500);
    expect((JSON.parse(answer.text) as { message: string }).message).toBe(
      `the home page's file "home.css" cannot be read (EACCES)`,
    );
  });

  it("refuses the pets to whoever mayReadPets refuses", async () => {
    await serve({ list, openApi, ...admin, mayReadPets: () => false });
    expect((await call(base, "/__home/pets")).status).toBe(403);
  });
});

describe("which requests come from this machine", () => {
  const request = (remoteAddress: string, host?: string) =>
    ({ socket: { remoteAddress }, headers: host === undefined ? {} : { host } }) as IncomingMessage;

  it.each([
    ["127.0.0.1", "localhost:4010"],
    ["127.8.9.10", "127.0.0.1"],
    ["::1", "[::1]:4010"],
    ["::ffff:127.0.0.1", "LocalHost"],
    ["127.0.0.1", "dev.localhost:8080"],
    ["127.0.0.1", undefined],
  ])("%s with Host %s is local", (address, host) => {
    expect(isLocalRequest(request(address, host))).toBe(true);
  });

  it.each([
    ["10.0.0.5", "localhost"],
    ["192.168.1.20", "127.0.0.1:4010"],
    ["::ffff:10.0.0.5", "localhost"],
    ["127.0.0.1", "attacker.example"],
    ["127.0.0.1", "127.0.0.1.attacker.example"],
    ["127.0.0.1", "localhost.attacker.example:80"],
    ["127.0.0.1", "[::2]:80"],
  ])("%s with Host %s is not", (address, host) => {
    expect(isLocalRequest(request(address, host))).toBe(false);
  });
});
