/**
 * scripts/node-runtimes.mjs fetches a runtime with the real npm, from a registry on
 * loopback that holds both tarball downloads until both have asked: two processes
 * (the build beside a test) fetch the same runtime at once.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT } from "../server/cli-build.js";
import { start } from "./run.js";

const NAME = "node-test-os-x64";
const VERSION = "22.0.1";
const FETCHER = pathToFileURL(join(REPO_ROOT, "scripts", "node-runtimes.mjs")).href;

let work: string;
let tarball: Buffer;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "petstore-runtimes-"));
  const source = join(work, "source");
  mkdirSync(join(source, "package", "bin"), { recursive: true });
  writeFileSync(
    join(source, "package", "package.json"),
    JSON.stringify({ name: NAME, version: VERSION }),
  );
  writeFileSync(join(source, "package", "bin", "node.exe"), "a runtime\n");
  execFileSync("tar", ["-czf", join(source, "runtime.tgz"), "-C", source, "package"]);
  tarball = readFileSync(join(source, "runtime.tgz"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A registry with the one package; tarball downloads wait until `holdFor` have asked. */
async function registry(holdFor: number) {
  const held: ServerResponse[] = [];
  let downloads = 0;
  const server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (request.url === `/${NAME}`) {
      const integrity = `sha512-${createHash("sha512").update(tarball).digest("base64")}`;
      const tarballUrl = `${base}/${NAME}/-/${NAME}-${VERSION}.tgz`;
      response.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          name: NAME,
          "dist-tags": { latest: VERSION },
          versions: {
            [VERSION]: { name: NAME, version: VERSION, dist: { tarball: tarballUrl, integrity } },
          },
        }),
      );
    } else if (request.url === `/${NAME}/-/${NAME}-${VERSION}.tgz`) {
      downloads++;
      held.push(response);
      if (held.length >= holdFor) {
        for (const waiting of held.splice(0)) waiting.writeHead(200).end(tarball);
      }
    } else {
      response.writeHead(404).end("{}");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    downloads: () => downloads,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

it("lets two processes fetch the same runtime at once: both get the one complete copy", async () => {
  const served = await registry(2);
  const root = join(work, "repo");
  try {
    const env = {
      ...process.env,
      npm_config_registry: served.url,
      npm_config_cache: join(work, "npm-cache"),
      npm_config_update_notifier: "false",
      npm_config_audit: "false",
    };
    const script = `import(${JSON.stringify(FETCHER)}).then(async ({ fetchRuntime }) =>
      console.log(await fetchRuntime(${JSON.stringify(root)}, "${NAME}", "${VERSION}")))`;
    const both = await Promise.all(
      [1, 2].map(() => start([process.execPath, "-e", script], [], { cwd: work, env }).exited),
    );
    expect(served.downloads()).toBe(2);
    const dir = join(root, ".cache", "nodes", `${NAME}-${VERSION}`);
    for (const fetched of both) {
      expect(fetched.code, fetched.stderr).toBe(0);
      expect(fetched.stdout).toBe(`${dir}\n`);
    }
    expect(readFileSync(join(dir, "bin", "node.exe"), "utf8")).toBe("a runtime\n");
    expect(readdirSync(join(root, ".cache", "nodes"))).toEqual([`${NAME}-${VERSION}`]);
  } finally {
    await served.close();
  }
});
