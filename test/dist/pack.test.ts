import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyringAccount } from "../../src/profiles/keyring-name.js";
import { parseJson } from "../../src/schema/json.js";
import { startSecretService } from "../../scripts/secret-service.mjs";
import { REPO_ROOT } from "../server/cli-build.js";
import { expectHomeServed } from "./home-files.js";
import { run, serve } from "./run.js";
import { HEAVY_HANG_MS } from "../limits.js";

const { version, name } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  version: string;
  name: string;
};

/**
 * What a user needs, and nothing else: built code, completions, README, licence, the
 * licences of what the bundles carry, OpenAPI.
 */
const ALLOWED = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^openapi\.json$/,
  /^bin\/(petstore\.js|package\.json)$/,
  /^completions\/(petstore\.bash|_petstore|petstore\.fish)$/,
  /^dist\/[a-z]+\.(cjs|js)$/,
  /^dist\/cli\.cjs\.cache$/,
  /^dist\/jq\.wasm$/,
  /^dist\/package\.json$/,
  /^dist\/THIRD_PARTY_LICENSES$/,
  /^dist\/(chunks|vendor)\/[\w-]+\.(js|cjs)$/,
  /^dist\/home\/[\w.-]+$/,
  /^dist\/types\/[\w/-]+\.d\.ts$/,
  /^dist\/types\/index\.d\.cts$/,
];

describe("the npm package", () => {
  let work: string;
  let files: string[];
  let prefix: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "petstore-pack-"));
    prefix = join(work, "prefix");
    // dist/ is built by the global setup; the declarations are the part prepack adds.
    execFileSync("npm", ["run", "build:types"], { cwd: REPO_ROOT, stdio: "ignore" });
    const packed = JSON.parse(
      execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], {
        cwd: REPO_ROOT,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }),
    ) as { filename: string; files: { path: string }[] }[];
    files = packed[0]!.files.map((file) => file.path);
    execFileSync(
      "npm",
      [
        "install",
        "-g",
        "--prefix",
        prefix,
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        join(work, packed[0]!.filename),
      ],
      { stdio: "ignore" },
    );
  }, HEAVY_HANG_MS);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("carries only what a user needs", () => {
    expect(files.filter((file) => !ALLOWED.some((pattern) => pattern.test(file)))).toEqual([]);
    for (const needed of [
      "bin/petstore.js",
      "dist/cli.cjs",
      "dist/index.js",
      "dist/index.cjs",
      "dist/jq.wasm",
      "dist/types/index.d.ts",
      "dist/types/index.d.cts",
      "dist/home/home.js",
      "dist/home/swagger-ui-bundle.js",
      "completions/petstore.bash",
      "openapi.json",
      "README.md",
      "LICENSE",
      "dist/THIRD_PARTY_LICENSES",
    ]) {
      expect(files).toContain(needed);
    }
  });

  it("installs the licences of the bundled packages beside the code", () => {
    const installed = join(prefix, "lib", "node_modules", name, "dist", "THIRD_PARTY_LICENSES");
    const built = join(REPO_ROOT, "dist", "THIRD_PARTY_LICENSES");
    expect(readFileSync(installed, "utf8")).toBe(readFileSync(built, "utf8"));
    expect(readFileSync(installed, "utf8")).toMatch(/^Package: commander$/m);
  });

  it("installs into an empty prefix with a working petstore on the PATH", async () => {
    const env = {
      PATH: `${join(prefix, "bin")}:${process.env.PATH}`,
      HOME: work,
      PETSTORE_CONFIG_DIR: join(work, "config"),
    };
    const cli = [join(prefix, "bin", "petstore")];
    expect(run(cli, ["--version"], { cwd: work, env }).stdout).toBe(`${version}\n`);

    const server = await serve(
      cli,
      ["--file", join(work, "pets.json"), "--seed", "7", "--key", "k"],
      {
        cwd: work,
        env,
      },
    );
    try {
      const list = run(cli, ["list", "--json"], {
        cwd: work,
        env: { ...env, PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: "k" },
      });
      expect(list.status, list.stderr).toBe(0);
      expect((parseJson(list.stdout) as unknown[]).length).toBe(7);
      const jq = run(cli, ["list", "--jq", "length"], {
        cwd: work,
        env: { ...env, PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: "k" },
      });
      expect(jq.stdout, jq.stderr).toBe("7\n");
      await expectHomeServed(server.url);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("installs the keyring binding of this platform alone, and keeps a key in the Secret Service with it", async () => {
    const installed = join(prefix, "lib", "node_modules", name, "node_modules", "@napi-rs");
    expect(readdirSync(installed)).toEqual(["keyring-linux-x64-gnu"]);
    expect(files.some((file) => file.endsWith(".node"))).toBe(false);

    const secrets = await startSecretService(join(work, "secrets"));
    try {
      await secrets.startKeyring("unlocked");
      const configDir = join(work, "keyring-config");
      const login = run(
        [join(prefix, "bin", "petstore")],
        ["auth", "login", "--with-token", "--no-verify"],
        {
          cwd: work,
          env: {
            PATH: process.env.PATH,
            HOME: work,
            PETSTORE_CONFIG_DIR: configDir,
            ...secrets.env,
          },
          input: "installed-key-0123456789",
        },
      );
      expect(login.status, login.stderr).toBe(0);
      expect(login.stderr).toContain("in the Secret Service keyring.");
      expect(secrets.lookup(keyringAccount("default", configDir))).toBe("installed-key-0123456789");
    } finally {
      await secrets.close();
    }
  });

  it("exports startServer and createClient for programs", () => {
    const entry = join(prefix, "lib", "node_modules", name, "dist", "index.js");
    const script =
      `const m = await import(${JSON.stringify(entry)});` +
      "const s = await m.startServer({ keys: ['k'], quiet: true });" +
      "const c = m.createClient({ baseUrl: s.url, apiKey: 'k', timeoutMs: 5000, retry: m.DEFAULT_RETRY_POLICY });" +
      "const made = await c.createPet({ name: 'Lib', categoryId: 5n });" +
      "const page = await fetch(s.url.replace(/v1$/, '__home/home.js'));" +
      "console.log(made.raw, page.status, (await page.text()).length); await s.close();";
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    const homeJs = readFileSync(join(REPO_ROOT, "dist", "home", "home.js"), "utf8").length;
    expect(out.trim()).toBe(
      `{"id":1,"name":"Lib","categoryId":5,"status":"available"} 200 ${homeJs}`,
    );
  });

  it(
    "gives TypeScript its types from CommonJS and from ESM alike",
    () => {
      // A project of its own, with the installed package and Node's types beside it.
      const project = join(work, "ts-project");
      mkdirSync(join(project, "node_modules", "@types"), { recursive: true });
      symlinkSync(join(prefix, "lib", "node_modules", name), join(project, "node_modules", name));
      symlinkSync(
        join(REPO_ROOT, "node_modules", "@types", "node"),
        join(project, "node_modules", "@types", "node"),
      );
      writeFileSync(join(project, "package.json"), '{"name":"consumer","private":true}\n');
      const use = [
        `import { startServer, createClient, PetstoreError, EXIT, DEFAULT_RETRY_POLICY } from "${name}";`,
        `import type { RunningServer, ClientResult, Pet } from "${name}";`,
        "export async function listed(): Promise<number> {",
        '  const server: RunningServer = await startServer({ keys: ["k"], quiet: true });',
        '  const client = createClient({ baseUrl: server.url, apiKey: "k", timeoutMs: 5000, retry: DEFAULT_RETRY_POLICY });',
        "  const page: ClientResult<Pet[]> = await client.listPets({ limit: 5 });",
        "  await server.close();",
        "  class Mine extends PetstoreError {}",
        '  const error: PetstoreError = new Mine("x", EXIT.USAGE);',
        "  return page.data.length + error.exitCode;",
        "}",
      ].join("\n");
      writeFileSync(join(project, "uses.cts"), use);
      writeFileSync(join(project, "uses.mts"), use);
      // Wrong on purpose: the types are the package's, not `any`.
      writeFileSync(
        join(project, "wrong.cts"),
        `import { startServer } from "${name}";\nexport const n: number = startServer;\n`,
      );
      const tsc = (files: string[]) => {
        try {
          execFileSync(
            process.execPath,
            [
              join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"),
              ...["--module", "node16", "--strict", "--noEmit", "--types", "node", ...files],
            ],
            { cwd: project, encoding: "utf8" },
          );
          return "";
        } catch (error) {
          return String((error as { stdout?: string }).stdout);
        }
      };
      // One compiler run (each costs seconds): the only error is the deliberate one.
      const errors = tsc(["uses.cts", "uses.mts", "wrong.cts"]).match(/^\S.*$/gm) ?? [];
      expect(errors).toEqual([
        expect.stringMatching(/^wrong\.cts\(2,14\): error TS2322: Type '\(options\?/),
      ]);
    },
    HEAVY_HANG_MS,
  );

  it("loads with require() from CommonJS", () => {
    const script =
      "const m = require('petstore-cli');" +
      "m.startServer({ keys: ['k'], quiet: true, pets: [{ id: 4, name: 'Cjs', categoryId: 1 }] })" +
      ".then(async (s) => { console.log(require.resolve('petstore-cli'), s.store.getJson(4n)); await s.close(); });";
    // Run from the prefix's lib/, so require() finds the package in its node_modules.
    const out = execFileSync(process.execPath, ["-e", script], {
      cwd: join(prefix, "lib"),
      encoding: "utf8",
    });
    expect(out.trim()).toBe(
      `${join(prefix, "lib", "node_modules", name, "dist", "index.cjs")} {"id":4,"name":"Cjs","categoryId":1}`,
    );
  });
});
