// Builds OCI image archives of `petstore serve` from the Linux standalone binaries
// (`npm run build:binary` makes them): dist/petstore-linux-amd64.oci.tar and
// dist/petstore-linux-arm64.oci.tar, tagged petstore:<version>. Each is FROM scratch:
// one layer with the binary, exactly the shared libraries its loader resolves (asked
// of the target's own loader, `ld.so --list`, as ldd does; under qemu-user for arm64),
// the loader, and the licences of what it holds. Nothing is pulled.
//
// The archive is written here, not by `podman build` + `podman save`: an OCI image
// layout (oci-layout, index.json, blobs/sha256/...) plus the manifest.json of
// `docker save`, so both `podman load` and every `docker load` (older ones read only
// manifest.json) take it. Every byte is fixed by the inputs: entries sorted, times at
// the Unix epoch, owner root. Why this way: docs/container.md, "Why it is built this way".
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { pack } from "tar-stream";
import { QEMU, TARGETS } from "./binary-targets.mjs";

const root = new URL("..", import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
export const IMAGE_NAME = `petstore:${version}`;
/** Where `serve` keeps its file in the image: a volume. */
export const DATA_DIR = "/data";

/** `sysroot`: where the target's libraries are on this machine; `list`: its loader's `--list`. */
export const IMAGES = [
  {
    target: "linux-x64",
    arch: "amd64",
    output: "petstore-linux-amd64.oci.tar",
    sysroot: "",
    list: ["/lib64/ld-linux-x86-64.so.2", "--list"],
  },
  {
    target: "linux-arm64",
    arch: "arm64",
    variant: "v8",
    output: "petstore-linux-arm64.oci.tar",
    sysroot: QEMU[2],
    list: [...QEMU, `${QEMU[2]}/lib/ld-linux-aarch64.so.1`, "--list"],
  },
];

const EPOCH = new Date(0);
const sha256 = (data) => `sha256:${createHash("sha256").update(data).digest("hex")}`;
const blobPath = (digest) => `blobs/sha256/${digest.slice("sha256:".length)}`;

/** A tar of `files` (path -> { data, mode }) and of every directory above them, sorted. */
async function tar(files) {
  const entries = new Map();
  for (const [path, file] of files) {
    for (let dir = dirname(path); dir !== "." && dir !== "/"; dir = dirname(dir)) {
      entries.set(`${dir}/`, { type: "directory", mode: 0o755 });
    }
    entries.set(path, file);
  }
  const archive = pack();
  for (const name of [...entries.keys()].sort()) {
    const { data, ...header } = entries.get(name);
    archive.entry({ name, mtime: EPOCH, uid: 0, gid: 0, mode: 0o644, ...header }, data);
  }
  archive.finalize();
  const chunks = [];
  for await (const chunk of archive) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The libraries and loader the binary loads, as paths inside the image. */
function sharedLibraries(image, binary) {
  const listing = execFileSync(image.list[0], [...image.list.slice(1), binary], {
    encoding: "utf8",
  });
  if (/not found/.test(listing)) throw new Error(`${binary} needs a missing library:\n${listing}`);
  return listing.split("\n").flatMap((line) => /(\/\S+)/.exec(line)?.slice(1) ?? []);
}

/** The Debian package that installed `file`, for its copyright file. */
function debianPackage(file) {
  for (const path of [file, realpathSync(file)]) {
    try {
      const owner = execFileSync("dpkg-query", ["-S", path], { encoding: "utf8", stdio: "pipe" });
      return owner.split(":")[0];
    } catch {
      // usrmerge: dpkg knows some libraries by their /lib name, others by their /usr one.
    }
  }
  throw new Error(`no Debian package owns ${file}, so its licence cannot be shipped`);
}

/** The image's one layer, as files by their path inside it. */
function layerFiles(image) {
  const target = TARGETS.find((each) => each.name === image.target);
  const binary = join(root, "dist", target.output);
  if (!existsSync(binary)) throw new Error(`${binary} is missing: npm run build:image builds it`);
  const files = new Map([
    ["petstore", { data: readFileSync(binary), mode: 0o755 }],
    ["THIRD_PARTY_LICENSES", { data: readFileSync(`${binary}.THIRD_PARTY_LICENSES`) }],
    [`${DATA_DIR.slice(1)}/`, { type: "directory", mode: 0o755 }],
  ]);
  for (const library of sharedLibraries(image, binary)) {
    const host = `${image.sysroot}${library}`;
    files.set(library.slice(1), { data: readFileSync(realpathSync(host)), mode: 0o755 });
    const copyright = `usr/share/doc/${debianPackage(host)}/copyright`;
    files.set(copyright, { data: readFileSync(`/${copyright}`) });
  }
  return files;
}

const platform = (image) => ({
  architecture: image.arch,
  os: "linux",
  ...(image.variant && { variant: image.variant }),
});

/** The OCI image config: how a container of it runs. */
function imageConfig(image, layerDigest) {
  return {
    created: EPOCH.toISOString(),
    ...platform(image),
    config: {
      // Arguments given to `docker run IMAGE ...` follow these (a repeated flag wins).
      Entrypoint: ["/petstore", "serve", "--host", "0.0.0.0", "--file", `${DATA_DIR}/pets.json`],
      ExposedPorts: { "4010/tcp": {} },
      Volumes: { [DATA_DIR]: {} },
      Labels: { "org.opencontainers.image.version": version },
    },
    rootfs: { type: "layers", diff_ids: [layerDigest] },
    history: [{ created: EPOCH.toISOString(), created_by: "scripts/build-image.mjs" }],
  };
}

async function buildImage(image) {
  const layer = await tar(layerFiles(image));
  const layerDigest = sha256(layer);
  const config = Buffer.from(JSON.stringify(imageConfig(image, layerDigest)));
  const descriptor = (mediaType, data) => ({ mediaType, digest: sha256(data), size: data.length });
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: descriptor("application/vnd.oci.image.config.v1+json", config),
      layers: [descriptor("application/vnd.oci.image.layer.v1.tar", layer)],
    }),
  );
  const index = {
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [
      {
        ...descriptor("application/vnd.oci.image.manifest.v1+json", manifest),
        platform: platform(image),
        annotations: {
          "io.containerd.image.name": `docker.io/library/${IMAGE_NAME}`,
          "org.opencontainers.image.ref.name": version,
        },
      },
    ],
  };
  const dockerManifest = [
    {
      Config: blobPath(sha256(config)),
      RepoTags: [IMAGE_NAME],
      Layers: [blobPath(layerDigest)],
    },
  ];
  const archive = await tar(
    new Map([
      ["oci-layout", { data: JSON.stringify({ imageLayoutVersion: "1.0.0" }) }],
      ["index.json", { data: JSON.stringify(index) }],
      ["manifest.json", { data: JSON.stringify(dockerManifest) }],
      ...[config, manifest, layer].map((blob) => [blobPath(sha256(blob)), { data: blob }]),
    ]),
  );
  const output = join(root, "dist", image.output);
  writeFileSync(`${output}.tmp`, archive);
  renameSync(`${output}.tmp`, output);
  console.error(`built dist/${image.output} (${IMAGE_NAME}, linux/${image.arch})`);
}

if (fileURLToPath(import.meta.url) === resolve(process.argv[1] ?? "")) {
  for (const image of IMAGES) {
    try {
      await buildImage(image);
    } catch (error) {
      const output = join(root, "dist", image.output);
      for (const file of [output, `${output}.tmp`]) rmSync(file, { force: true });
      console.error(`build-image: dist/${image.output} failed: ${error.message}`);
      process.exitCode = 1;
    }
  }
}
