/**
 * A podman of the test's own (Debian's podman with runc), which never touches the
 * machine's containers: every command runs in a mount namespace of its own, held by
 * one helper process, with tmpfs over /run and /var/lib (where podman keeps state it
 * has no flag for: network namespaces, runc's state, a blob cache); each storage
 * (`--root`, `--runroot`) and the network configuration are in the test's directory;
 * the network is slirp4netns (no bridge, no firewall rule, a published port is a
 * socket on the host's 127.0.0.1); and the containers' cgroups, under a parent named
 * for this run, are removed at the end.
 *
 * With `arm64`, the helper also mounts binfmt_misc and registers qemu-aarch64-static
 * (flag F: the emulator is opened now, so it runs inside containers) under a name of
 * this run's, and removes the registration when it ends: closed by the test, or by
 * itself once `lifetimeMs` has passed, so a killed test leaves nothing registered.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";

const QEMU_STATIC = "/usr/bin/qemu-aarch64-static";
/** An aarch64 ELF executable's header, as Debian's qemu-user-static registers it. */
const AARCH64_MAGIC =
  "\\x7f\\x45\\x4c\\x46\\x02\\x01\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\\x00\\xb7\\x00";
const AARCH64_MASK =
  "\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\x00\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe\\xff\\xff\\xff";
const BINFMT = "/proc/sys/fs/binfmt_misc";

const HOLDER = `set -e
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /var/lib
if [ -n "$BINFMT_NAME" ]; then
  mount -t binfmt_misc binfmt_misc ${BINFMT}
  printf '%s\\n' "$BINFMT_RULE" > ${BINFMT}/register
  trap 'echo -1 > ${BINFMT}/$BINFMT_NAME' EXIT
fi
trap 'kill $! 2>/dev/null; exit 0' TERM INT HUP
sleep "$LIFETIME" &
echo ready
wait
`;

/** Where this machine keeps cgroup hierarchies: v1 (one per controller) or v2. */
function cgroupRoots(): string[] {
  const base = "/sys/fs/cgroup";
  if (existsSync(join(base, "cgroup.controllers"))) return [base];
  return readdirSync(base, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(base, entry.name));
}

/** A cgroup and the ones under it, deepest first (their files go with them). */
function removeCgroup(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) removeCgroup(join(dir, entry.name));
  }
  rmdirSync(dir);
}

export interface Sandbox {
  /** `podman args` on the storage named `storage`; its stdout. */
  podman(storage: string, args: readonly string[], timeoutMs?: number): string;
  /** What every `podman run` here needs (runtime, limits, network, cgroup parent). */
  runFlags: readonly string[];
  /** Removes every container, ends the namespace and the registration, removes the cgroups. */
  close(): Promise<void>;
}

export async function openSandbox(
  dir: string,
  options: { arm64: boolean; lifetimeMs: number },
): Promise<Sandbox> {
  const name = `petstore-test-${process.pid}-${Date.now()}`;
  const holder: ChildProcess = spawn(
    "unshare",
    ["--mount", "--propagation", "private", "sh", "-c", HOLDER],
    {
      env: {
        PATH: process.env.PATH,
        LIFETIME: String(Math.ceil(options.lifetimeMs / 1000)),
        BINFMT_NAME: options.arm64 ? name : "",
        BINFMT_RULE: `:${name}:M::${AARCH64_MAGIC}:${AARCH64_MASK}:${QEMU_STATIC}:F`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const exited = new Promise<void>((resolve) => holder.once("exit", () => resolve()));
  let stderr = "";
  holder.stderr!.on("data", (data: Buffer) => (stderr += data.toString()));
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on("data", (data: Buffer) => data.toString().includes("ready") && resolve());
    void exited.then(() => reject(new Error(`the podman sandbox did not start: ${stderr}`)));
  });
  const storages = new Set<string>();
  const podman = (storage: string, args: readonly string[], timeoutMs = 60_000) => {
    storages.add(storage);
    const globals = [
      ...["--root", join(dir, storage, "root"), "--runroot", join(dir, storage, "run")],
      ...["--cgroup-manager", "cgroupfs", "--events-backend", "file"],
      ...["--network-config-dir", join(dir, "cni")],
    ];
    return execFileSync(
      "nsenter",
      ["--target", String(holder.pid), "--mount", "--", "podman", ...globals, ...args],
      { encoding: "utf8", timeout: timeoutMs, stdio: ["ignore", "pipe", "pipe"] },
    );
  };
  return {
    podman,
    runFlags: [
      ...["--runtime", "runc", "--cgroup-parent", `/${name}`],
      ...["--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096"],
      ...["--network", "slirp4netns:port_handler=slirp4netns"],
    ],
    async close() {
      try {
        for (const storage of storages) podman(storage, ["rm", "--all", "--force", "--time", "0"]);
      } finally {
        holder.kill("SIGTERM");
        await exited;
        for (const root of cgroupRoots()) removeCgroup(join(root, name));
      }
    },
  };
}
