/**
 * The container images of `petstore serve` (scripts/build-image.mjs, docs/container.md):
 * built twice from the Linux binaries (the same bytes both times), holding exactly
 * what the binary needs, then loaded into a podman of the test's own (./podman.ts)
 * and run as the compose recipe of docs/container.md has it, reached from the host
 * on 127.0.0.1 only: amd64 natively, arm64 under qemu through binfmt_misc.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DATA_DIR, IMAGE_NAME, IMAGES } from "../../scripts/build-image.mjs";
import { TARGETS } from "../../scripts/binary-targets.mjs";
import { REPO_ROOT } from "../server/cli-build.js";
import { call, type Answer } from "../server/http.js";
import { HANG_MS, HEAVY_HANG_MS } from "../limits.js";
import { ensureBinaries } from "./binaries.js";
import { openSandbox, type Sandbox } from "./podman.js";

const [AMD64, ARM64] = IMAGES;
const archive = (image: { output: string }) => join(REPO_ROOT, "dist", image.output);

interface ComposeService {
  image: string;
  command: string[];
  environment: Record<string, string>;
  ports: string[];
  volumes: string[];
  healthcheck: { test: string[]; timeout: string };
}

/** The `petstore` service of the compose recipe in docs/container.md. */
function composeService(): ComposeService {
  const text = readFileSync(join(REPO_ROOT, "docs", "container.md"), "utf8");
  const block = text
    .split("<!-- compose-recipe:start -->")[1]
    ?.split("<!-- compose-recipe:end -->")[0];
  const yaml = /```yaml\n([\s\S]*?)```/.exec(block ?? "")?.[1];
  if (yaml === undefined) throw new Error("docs/container.md has no compose recipe");
  return (parse(yaml) as { services: { petstore: ComposeService } }).services.petstore;
}

function buildImages(): string[] {
  execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "build-image.mjs")], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  return IMAGES.map((image) =>
    createHash("sha256")
      .update(readFileSync(archive(image)))
      .digest("hex"),
  );
}

let work: string;
let sandbox: Sandbox;
let firstBuild: string[];
let secondBuild: string[];

beforeAll(async () => {
  ensureBinaries(IMAGES.map((image) => image.target));
  firstBuild = buildImages();
  secondBuild = buildImages();
  work = mkdtempSync(join(tmpdir(), "petstore-image-"));
  sandbox = await openSandbox(work, { arm64: true, lifetimeMs: HEAVY_HANG_MS + 4 * HANG_MS });
}, HEAVY_HANG_MS);

afterAll(async () => {
  await sandbox?.close();
  if (work) rmSync(work, { recursive: true, force: true });
}, HANG_MS);

it("builds the same bytes twice", () => {
  expect(secondBuild).toEqual(firstBuild);
});

describe.each([
  [AMD64, "x86_64-linux-gnu/", "lib64/ld-linux-x86-64.so.2", ["libc6", "libgcc-s1", "libstdc++6"]],
  [
    ARM64,
    "",
    "lib/ld-linux-aarch64.so.1",
    ["libc6-arm64-cross", "libgcc-s1-arm64-cross", "libstdc++6-arm64-cross"],
  ],
])("the %s archive", (image, libDir, loader, packages) => {
  let unpacked: string;
  const json = (path: string) => JSON.parse(readFileSync(join(unpacked, path), "utf8")) as never;
  const blob = (digest: string) => `blobs/sha256/${digest.split(":")[1]!}`;
  beforeAll(() => {
    unpacked = join(work, `unpacked-${image.arch}`);
    mkdirSync(unpacked);
    execFileSync("tar", ["-xf", archive(image), "-C", unpacked]);
  });

  it("is an OCI layout, and a docker-archive too, of one image tagged with the version", () => {
    const index = json("index.json") as { manifests: { digest: string; annotations: object }[] };
    expect(index.manifests).toHaveLength(1);
    expect(index.manifests[0]!.annotations).toMatchObject({
      "io.containerd.image.name": `docker.io/library/${IMAGE_NAME}`,
    });
    const manifest = json(blob(index.manifests[0]!.digest)) as {
      config: { digest: string };
      layers: { digest: string }[];
    };
    const [docker] = json("manifest.json") as { RepoTags: string[]; Config: string }[];
    expect(docker!.RepoTags).toEqual([IMAGE_NAME]);
    expect(docker!.Config).toBe(blob(manifest.config.digest));
    expect(manifest.layers).toHaveLength(1);
  });

  it("reads as the same image through either layout: docker-archive and oci-archive", () => {
    const [docker] = json("manifest.json") as { Config: string }[];
    for (const layout of ["docker-archive", "oci-archive"]) {
      const pull = ["pull", "--quiet", `${layout}:${archive(image)}`];
      const id = sandbox.podman(`layouts-${image.arch}`, pull, HANG_MS).trim();
      expect(`blobs/sha256/${id}`, layout).toBe(docker!.Config);
    }
  });

  it("runs serve on 0.0.0.0:4010 with its file on the volume /data", () => {
    const [docker] = json("manifest.json") as { Config: string }[];
    const config = json(docker!.Config) as Record<string, never>;
    expect(config).toMatchObject({ architecture: image.arch, os: "linux" });
    expect(config.config).toEqual({
      Entrypoint: ["/petstore", "serve", "--host", "0.0.0.0", "--file", `${DATA_DIR}/pets.json`],
      ExposedPorts: { "4010/tcp": {} },
      Volumes: { [DATA_DIR]: {} },
      Labels: { "org.opencontainers.image.version": IMAGE_NAME.split(":")[1] },
    });
  });

  it("holds the binary, exactly the libraries it loads, the loader and their licences", () => {
    const [docker] = json("manifest.json") as { Layers: string[] }[];
    const layer = join(unpacked, docker!.Layers[0]!);
    const files = execFileSync("tar", ["-tf", layer], { encoding: "utf8" })
      .split("\n")
      .filter((name) => name !== "" && !name.endsWith("/"));
    const libraries = ["libc.so.6", "libdl.so.2", "libgcc_s.so.1", "libm.so.6"];
    libraries.push("libpthread.so.0", "libstdc++.so.6");
    expect(files.sort()).toEqual(
      [
        "THIRD_PARTY_LICENSES",
        loader,
        "petstore",
        ...libraries.map((name) => `lib/${libDir}${name}`),
        ...packages.map((name) => `usr/share/doc/${name}/copyright`),
      ].sort(),
    );
    const target = TARGETS.find((each) => each.name === image.target)!;
    const binary = execFileSync("tar", ["-xOf", layer, "petstore"], { maxBuffer: 1 << 30 });
    expect(binary.equals(readFileSync(join(REPO_ROOT, "dist", target.output)))).toBe(true);
  });
});

/** The host address podman published the container's port 4010 on: 127.0.0.1 only. */
function published(storage: string, container: string): string {
  const address = sandbox.podman(storage, ["port", container, "4010/tcp"]).trim();
  expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
  return `http://${address}`;
}

/** GET `path` until the fake answers (it may still be starting, slowly under qemu). */
async function whenUp(storage: string, container: string, path: string, key: string) {
  const deadline = Date.now() + HANG_MS / 2;
  for (;;) {
    const origin = published(storage, container);
    const answer: Answer | undefined = await call(origin, path, { key }).catch(() => undefined);
    if (answer !== undefined) return { origin, answer };
    if (Date.now() > deadline) {
      throw new Error(`no answer: ${sandbox.podman(storage, ["logs", container])}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function stop(storage: string, container: string): number {
  sandbox.podman(storage, ["stop", container]);
  return Number(sandbox.podman(storage, ["inspect", "--format", "{{.State.ExitCode}}", container]));
}

describe("the amd64 image, run with podman as the compose recipe has it", () => {
  const service = composeService();
  const key = service.environment.PETSTORE_SERVE_KEYS!.split(":")[0]!;
  const token = service.environment.PETSTORE_SERVE_ADMIN_TOKEN!;
  const [healthKind, ...healthCommand] = service.healthcheck.test;
  const run = (name: string) => [
    ...["run", "--detach", "--name", name, ...sandbox.runFlags],
    ...Object.entries(service.environment).flatMap(([name, value]) => [
      "--env",
      `${name}=${value}`,
    ]),
    // The recipe's 127.0.0.1:4010:4010, on a free port of the host's loopback.
    ...["--publish", "127.0.0.1::4010", "--volume", service.volumes[0]!],
    ...["--health-cmd", JSON.stringify(healthCommand), "--health-interval", "disable"],
    ...[service.image, ...service.command],
  ];
  let origin: string;

  beforeAll(() => {
    const loaded = sandbox.podman("amd64", ["load", "--input", archive(AMD64)], HANG_MS);
    expect(loaded).toContain(IMAGE_NAME);
    expect(service.image).toBe(IMAGE_NAME);
    expect(service.ports).toEqual(["127.0.0.1:4010:4010"]);
    expect(service.volumes[0]).toMatch(new RegExp(`^[\\w-]+:${DATA_DIR}$`));
    sandbox.podman("amd64", run("petstore"));
  }, HANG_MS);

  it("answers /v1/pets with the key from its environment, and /__admin/health with the token", async () => {
    let answer: Answer;
    ({ origin, answer } = await whenUp("amd64", "petstore", "/v1/pets?limit=100", key));
    expect(answer.status).toBe(200);
    expect(answer.json()).toHaveLength(20);
    expect((await call(origin, "/v1/pets", { key: "not-a-key" })).status).toBe(401);
    const health = await call(origin, "/__admin/health", { key: token });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toMatchObject({ status: "ok", pets: 20 });
    expect((await call(origin, "/__admin/health")).status).toBe(401);
  });

  it("is healthy by the recipe's health check, run inside the container", () => {
    expect(healthKind).toBe("CMD");
    sandbox.podman("amd64", ["healthcheck", "run", "petstore"]);
    const format = ["--format", "{{.State.Health.Status}}"];
    expect(sandbox.podman("amd64", ["inspect", ...format, "petstore"]).trim()).toBe("healthy");
    const probe = sandbox.podman("amd64", ["exec", "petstore", ...healthCommand]);
    expect(JSON.parse(probe)).toMatchObject({ status: "ok" });
  });

  it("keeps a pet on its volume: stopped (exit 0), restarted, and in a new container", async () => {
    const body = JSON.stringify({ name: "Kept", categoryId: 7 });
    const created = await call(origin, "/v1/pets", { key, body });
    expect(created.status).toBe(201);
    const { id } = created.json() as { id: number };
    expect(stop("amd64", "petstore")).toBe(0);
    // SIGTERM made serve write its file, on the volume (podman's directory of it).
    const volume = service.volumes[0]!.split(":")[0]!;
    const format = ["--format", "{{.Mountpoint}}"];
    const onDisk = sandbox.podman("amd64", ["volume", "inspect", ...format, volume]).trim();
    expect(readFileSync(join(onDisk, "pets.json"), "utf8")).toContain('"name":"Kept"');

    sandbox.podman("amd64", ["start", "petstore"]);
    const restarted = await whenUp("amd64", "petstore", `/v1/pets/${id}`, key);
    expect(restarted.answer.json()).toMatchObject({ id, name: "Kept" });
    expect(stop("amd64", "petstore")).toBe(0);

    sandbox.podman("amd64", ["rm", "petstore"]);
    sandbox.podman("amd64", run("petstore-again"));
    const again = await whenUp("amd64", "petstore-again", `/v1/pets/${id}`, key);
    expect(again.answer.json()).toMatchObject({ id, name: "Kept" });
    expect(stop("amd64", "petstore-again")).toBe(0);
  });
});

describe("the arm64 image, under qemu-aarch64-static registered with binfmt_misc", () => {
  it("serves, takes a pet onto its volume and exits 0 on podman stop", async () => {
    const loaded = sandbox.podman("arm64", ["load", "--input", archive(ARM64)], HANG_MS);
    expect(loaded).toContain(IMAGE_NAME);
    const format = ["--format", "{{.Architecture}}"];
    expect(sandbox.podman("arm64", ["image", "inspect", ...format, IMAGE_NAME]).trim()).toBe(
      "arm64",
    );
    const data = join(work, "arm64-data");
    mkdirSync(data);
    sandbox.podman("arm64", [
      ...["run", "--detach", "--name", "petstore", ...sandbox.runFlags],
      ...["--env", "PETSTORE_SERVE_KEYS=arm-key:pro", "--publish", "127.0.0.1::4010"],
      ...["--volume", `${data}:${DATA_DIR}`, IMAGE_NAME],
    ]);
    const { origin, answer } = await whenUp("arm64", "petstore", "/v1/pets", "arm-key");
    expect(answer.status).toBe(200);
    expect(answer.headers["x-ratelimit-limit"]).toBe("300");
    const body = JSON.stringify({ name: "Emulated", categoryId: 64 });
    expect((await call(origin, "/v1/pets", { key: "arm-key", body })).status).toBe(201);
    expect(stop("arm64", "petstore")).toBe(0);
    expect(readFileSync(join(data, "pets.json"), "utf8")).toContain('"name":"Emulated"');
  });
});
