import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson } from "../../src/schema/json.js";
import { BIN, REPO_ROOT } from "../server/cli-build.js";
import { TARGETS } from "../../scripts/binary-targets.mjs";
import { COPIED_PACKAGES } from "../../scripts/home-assets.mjs";
import { namesIn } from "../bulk/helpers.js";
import { stopAndResume } from "../bulk/interrupt.js";
import { keyringAccount } from "../../src/profiles/keyring-name.js";
import { startSecretService } from "../../scripts/secret-service.mjs";
import {
  installProcessPrng,
  NO_KEEPALIVE_SHIM,
  prepareWine,
  type Wine,
} from "../platforms/wine.js";
import { ensureBinaries } from "./binaries.js";
import { expectHomeServed } from "./home-files.js";
import { launcher, type Launcher } from "./launchers.js";
import { bundledPackages, listedEntries, listedPackages } from "./licences.js";
import { run, serve, type Served } from "./run.js";
import { HANG_MS, HEAVY_HANG_MS } from "../limits.js";

const { version, optionalDependencies } = JSON.parse(
  readFileSync(join(REPO_ROOT, "package.json"), "utf8"),
) as { version: string; optionalDependencies: Record<string, string> };
const KEY = "binary-key-0123";
/** The npm package's CLI on this machine's Node: the Linux side the binaries talk to. */
const LINUX_CLI = [process.execPath, BIN];

/** No node on the PATH and no node_modules anywhere near the working directory. */
function bareEnv(work: string): NodeJS.ProcessEnv {
  const emptyPath = join(work, "no-node-here");
  mkdirSync(emptyPath, { recursive: true });
  return { PATH: emptyPath, HOME: work };
}

beforeAll(() => ensureBinaries(TARGETS.map((target) => target.name)), 1_200_000);

it("runs where no node can be found, so the binaries run on their own runtimes", () => {
  const work = mkdtempSync(join(tmpdir(), "petstore-binary-"));
  try {
    const probe = run(["/bin/sh", "-c", "command -v node || echo none"], [], {
      cwd: work,
      env: bareEnv(work),
    });
    expect(probe.stdout.trim()).toBe("none");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

/** Replaces the fault settings of the fake at `baseUrl` through its control plane. */
async function setFaults(baseUrl: string, faults: object): Promise<void> {
  const answer = await fetch(baseUrl.replace(/\/v1$/, "/__admin/faults"), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(faults),
  });
  expect(answer.status, await answer.text()).toBe(200);
}

describe.each(TARGETS)("the standalone binary for $name", (target) => {
  const binary = join(REPO_ROOT, "dist", target.output);
  // Emulated commands take seconds each: a hang detector of the heavy kind.
  const limit = target.runner === "native" ? HANG_MS : HEAVY_HANG_MS;
  let work: string;
  let env: NodeJS.ProcessEnv;
  let linux: Served;
  let wine: Wine | undefined;
  let bin: Launcher;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), `petstore-binary-${target.name}-`));
    env = bareEnv(work);
    if (target.runner === "wine") wine = await prepareWine(work);
    bin = launcher(target.runner, binary, work, wine);
    linux = await serve(
      LINUX_CLI,
      ["--file", join(work, "pets.json"), "--seed", "12", "--key", `${KEY}:pro`],
      { cwd: work, env },
    );
    env = { ...env, PETSTORE_BASE_URL: linux.url };
  }, HEAVY_HANG_MS);

  afterAll(async () => {
    await linux?.stop();
    await wine?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** The binary's environment, with its own config directory and the key unless told otherwise. */
  const client = (extra: NodeJS.ProcessEnv = {}) => ({
    cwd: work,
    env: {
      ...env,
      PETSTORE_CONFIG_DIR: bin.path(join(work, "config")),
      PETSTORE_API_KEY: KEY,
      ...extra,
    },
  });

  it("has beside it the licences of its Node and of every package bundled into it", () => {
    const text = readFileSync(`${binary}.THIRD_PARTY_LICENSES`, "utf8");
    const bundled = bundledPackages(REPO_ROOT, join(REPO_ROOT, "dist", "sea", "metafile.json"));
    expect(bundled.map((pkg) => pkg.id)).toContain(
      bundledPackages(REPO_ROOT, join(REPO_ROOT, "dist", "metafile.json")).find(
        (pkg) => pkg.dir === "node_modules/commander",
      )!.id,
    );
    const [runtime, ...rest] = listedPackages(text);
    expect(runtime).toBe(`${target.runtime}@${target.node}`);
    expect(listedEntries(text).get(runtime!)).toContain("Node.js is licensed for use as follows:");
    // Embedded as they are: the API reference library, the keyring binding and the
    // package whose licence covers the binding's own code.
    const copied = [...COPIED_PACKAGES.map(({ name }) => name), "@napi-rs/keyring"].map((name) => {
      const manifest = join(REPO_ROOT, "node_modules", name, "package.json");
      return `${name}@${(JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version}`;
    });
    const binding = `${target.keyring}@${optionalDependencies[target.keyring]}`;
    expect(rest.sort()).toEqual(
      [...new Set([...bundled.map((pkg) => pkg.id), ...copied, binding])].sort(),
    );
    // The Rust crates and the libdbus built into the binding.
    expect(listedEntries(text).get(binding)).toContain("--- LICENSE.third-party.md ---");
    const swagger = listedEntries(text).get(copied[0]!)!;
    expect(swagger).toContain("License: Apache-2.0");
    expect(swagger).toContain("--- swagger-ui-bundle.js.LICENSE.txt ---");
    const jq = [...listedEntries(text)].find(([id]) => id.startsWith("jq-wasm@"))?.[1];
    expect(jq).toContain("jq is copyright (C) 2012 Stephen Dolan");
    expect(jq).toContain("Copyright (c) 2002-2021  K.Kosako");
  });

  it(
    "prints its version",
    () => {
      expect(bin.run(["--version"], client())).toMatchObject({ status: 0, stdout: `${version}\n` });
    },
    limit,
  );

  it(
    "lists, adds and gets against a Linux serve",
    () => {
      const list = bin.run(["list", "--json", "--limit", "100"], client());
      expect(list.status, list.stderr).toBe(0);
      expect((parseJson(list.stdout) as unknown[]).length).toBe(12);

      const add = bin.run(
        ["add", "--name", "Binary", "--category-id", "9223372036854775807", "--json"],
        client(),
      );
      expect(add.status, add.stderr).toBe(0);
      expect(add.stdout).toContain('"categoryId":9223372036854775807');

      const get = bin.run(["get", "13", "-o", "tsv"], client());
      expect(get.status, get.stderr).toBe(0);
      expect(get.stdout).toBe("13\tBinary\t9223372036854775807\tavailable\n");
    },
    limit,
  );

  it(
    "filters with --jq, jq being inside it: strings raw, int64 exact, a bad filter exit 2",
    () => {
      const names = bin.run(
        ["list", "--limit", "3", "--jq", '.[] | "\\(.id)\\t\\(.name)"'],
        client(),
      );
      expect(names.status, names.stderr).toBe(0);
      expect(names.stdout).toMatch(/^1\t\S.*\n2\t\S.*\n3\t\S.*\n$/);
      const big = bin.run(
        [
          "add",
          "--name",
          "Filtered",
          "--category-id",
          "9223372036854775807",
          "--jq",
          ".categoryId",
        ],
        client(),
      );
      expect(big).toMatchObject({ status: 0, stdout: "9223372036854775807\n" });
      const bad = bin.run(["list", "--jq", ".["], client());
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain("jq: 1 compile error");
    },
    limit,
  );

  it(
    "keeps the documented exit codes",
    () => {
      expect(bin.run(["list", "--limit", "0"], client()).status).toBe(2);
      expect(bin.run(["get", "999"], client()).status).toBe(4);
      expect(bin.run(["list"], client({ PETSTORE_API_KEY: "wrong-key-0123" })).status).toBe(3);
    },
    limit,
  );

  it(
    "with no keyring to use, logs in and keeps the key where its platform keeps a config (%APPDATA% on Windows), saying why",
    () => {
      // Nothing chooses the config directory, and the key comes only from the login.
      const bare = { cwd: work, env };
      const login = bin.run(["auth", "login", "--with-token"], { ...bare, input: `${KEY}\n` });
      expect(login.status, login.stderr).toBe(0);
      // No D-Bus session here; under wine, no ProcessPrng yet (the next test adds it).
      expect(login.stderr).toContain(
        target.runner === "wine"
          ? ", not in a system keyring: its binding cannot be loaded ("
          : ", not in a system keyring: no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set).",
      );
      const config = join(bin.defaultConfigDir(work), "config.json");
      expect(parseJson(readFileSync(config, "utf8"))).toMatchObject({
        profiles: { default: { apiKey: KEY } },
      });
      const list = bin.run(["list", "--limit", "1", "-q"], bare);
      expect(list).toMatchObject({ status: 0, stdout: "1\n" });
    },
    limit,
  );

  it(
    "stores, reads and removes a key in its platform's keyring: GNOME Keyring on D-Bus, the Credential Manager under wine",
    async () => {
      const secrets =
        target.runner === "wine" ? undefined : await startSecretService(join(work, "secrets"));
      try {
        await secrets?.startKeyring("unlocked");
        if (wine) installProcessPrng(wine, work);
        const configDir = join(work, "keyring-config");
        // On Linux the binding is written to a temporary directory and removed once loaded
        // (TMPDIR), or kept between runs in the user's own XDG_RUNTIME_DIR (below). Not under
        // wine: there TMPDIR would start a second wineserver on the same prefix.
        const temporary = join(work, "keyring-tmp");
        mkdirSync(temporary, { recursive: true });
        const options = client({
          PETSTORE_API_KEY: undefined,
          PETSTORE_CONFIG_DIR: bin.path(configDir),
          ...(secrets && { TMPDIR: temporary, ...secrets.env }),
        });
        const account = keyringAccount("default", bin.path(configDir));
        const keyring =
          target.runner === "wine"
            ? "the Windows Credential Manager"
            : "the Secret Service keyring";

        const login = bin.run(["auth", "login", "--with-token"], { ...options, input: KEY });
        expect(login.status, login.stderr).toBe(0);
        expect(login.stderr).toContain(`in profile default (production) in ${keyring}.\n`);
        const stored = readFileSync(join(configDir, "config.json"), "utf8");
        expect(stored).not.toContain(KEY);
        expect(parseJson(stored)).toMatchObject({ profiles: { default: { keyring: account } } });
        if (secrets) expect(secrets.lookup(account)).toBe(KEY);
        else {
          // Wine's Credential Manager keeps it in the prefix's registry: read there by `reg`.
          const registry = await wine!.run("reg", [
            "query",
            "HKCU\\Software\\Wine\\Credential Manager",
            "/s",
          ]);
          expect(registry.stdout).toContain(`UserName    REG_SZ    ${account}`);
        }

        if (secrets) expect(readdirSync(temporary)).toEqual([]);
        const runtime = join(work, "keyring-runtime");
        mkdirSync(runtime, { mode: 0o700, recursive: true });
        const list = bin.run(["list", "--limit", "1", "-q"], {
          ...options,
          env: { ...options.env, XDG_RUNTIME_DIR: runtime },
        });
        expect(list).toMatchObject({ status: 0, stdout: "1\n" });
        // Kept in the user's own directory: XDG_RUNTIME_DIR, or %TEMP% on Windows.
        const kept = wine ? join(dirname(dirname(wine.appData)), "Temp") : runtime;
        expect(readdirSync(kept)).toContainEqual(
          expect.stringMatching(/^petstore-keyring-\d+\.node$/),
        );
        const status = bin.run(["auth", "status"], options);
        expect(status.stdout).toContain(`(from profile default, in ${keyring})`);

        expect(bin.run(["auth", "logout"], options).status).toBe(0);
        if (secrets) expect(secrets.lookup(account)).toBeUndefined();
        expect(bin.run(["list"], options).status).toBe(3);
      } finally {
        await secrets?.close();
      }
    },
    limit,
  );

  it(
    "add --from: Ctrl-C stops it with 130, --resume adds the rest, each row once",
    async () => {
      // Answers a tenth of a second late, so that the run cannot end between its fifth row
      // and the Ctrl-C that follows it.
      await setFaults(linux.url, { latencyMs: { min: 100, max: 100 } });
      try {
        await stopAndResume({
          dir: work,
          path: bin.path,
          // Under wine, the keep-alive shim goes in through NODE_OPTIONS, which a SEA honours.
          start: (args) =>
            bin.start(
              args,
              client(
                target.runner === "wine"
                  ? { NODE_OPTIONS: `--require ${bin.path(NO_KEEPALIVE_SHIM)}` }
                  : {},
              ),
            ),
          names: () => {
            const listed = run(LINUX_CLI, ["list", "--json", "--limit", "100"], {
              cwd: work,
              env: { ...env, PETSTORE_API_KEY: KEY },
            });
            expect(listed.status, listed.stderr).toBe(0);
            return namesIn(listed.stdout);
          },
          timeoutMs: limit,
        });
      } finally {
        await setFaults(linux.url, {});
      }
    },
    limit,
  );

  it(
    "serves from inside itself with no dist/ beside it, driven from Linux, and keeps every pet when stopped",
    async () => {
      const alone = join(work, "alone");
      mkdirSync(alone, { recursive: true });
      const copy = join(alone, basename(binary));
      copyFileSync(binary, copy);
      const file = join(work, "served.json");
      const own = await bin
        .at(copy)
        .serve(["--file", bin.path(file), "--key", KEY], { cwd: alone, env });
      let stopped: number | null | undefined;
      try {
        await expectHomeServed(own.url);
        const linuxClient = {
          cwd: work,
          env: { ...env, PETSTORE_BASE_URL: own.url, PETSTORE_API_KEY: KEY },
        };
        for (const name of ["Kept", "Also kept"]) {
          const added = run(
            LINUX_CLI,
            ["add", "--name", name, "--category-id", "1", "-q"],
            linuxClient,
          );
          expect(added.stdout, added.stderr).toMatch(/^\d+\n$/);
        }
        const got = run(LINUX_CLI, ["get", "2", "-o", "tsv"], linuxClient);
        expect(got.stdout, got.stderr).toBe("2\tAlso kept\t1\tavailable\n");
      } finally {
        stopped = await own.stop();
      }
      expect(stopped).toBe(0);
      expect(parseJson(readFileSync(file, "utf8"))).toEqual([
        { id: 1n, name: "Kept", categoryId: 1n, status: "available" },
        { id: 2n, name: "Also kept", categoryId: 1n, status: "available" },
      ]);
    },
    limit,
  );
});
