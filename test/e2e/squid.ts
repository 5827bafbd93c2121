/**
 * Debian's squid as the tests' real proxy, on 127.0.0.1, with a configuration of
 * its own in a temporary directory: basic authentication (basic_ncsa_auth and an
 * htpasswd file written with `openssl passwd -apr1`), no cache, and a hosts file
 * that is the only way it can reach the test's host names (each on 127.0.0.1).
 * Its DNS server is 127.0.0.1, where nothing answers, so it never looks a name up
 * anywhere else. Chosen over tinyproxy, which cannot map a name to an address.
 *
 * Run as root, squid works as the `proxy` user: its directory is that user's.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unusedPort } from "../client/http-server.js";
import { HANG_MS } from "../limits.js";

const SQUID = "/usr/sbin/squid";
const START_TIMEOUT_MS = HANG_MS / 2;
const STOP_TIMEOUT_MS = 5_000;

export interface Squid {
  url: string;
  port: number;
  /** squid's access log so far: one line per request or tunnel. */
  accessLog(): string;
  stop(): Promise<void>;
}

export interface SquidOptions {
  user: string;
  password: string;
  /** Names squid reaches, each on 127.0.0.1. */
  hosts: readonly string[];
}

function apr1(password: string): string {
  const hashed = spawnSync("openssl", ["passwd", "-apr1", "-stdin"], {
    input: password,
    encoding: "utf8",
  });
  if (hashed.status !== 0) throw new Error(`openssl passwd failed: ${hashed.stderr}`);
  return hashed.stdout.trim();
}

function idOf(flag: "-u" | "-g", name: string): number {
  const run = spawnSync("id", [flag, name], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`no user ${name}: ${run.stderr}`);
  return Number(run.stdout.trim());
}

function config(dir: string, port: number, root: boolean): string {
  return [
    `http_port 127.0.0.1:${port}`,
    ...(root ? ["cache_effective_user proxy"] : []),
    `pid_filename ${dir}/squid.pid`,
    `cache_log ${dir}/cache.log`,
    `access_log stdio:${dir}/access.log`,
    "cache_store_log none",
    `coredump_dir ${dir}`,
    "cache deny all",
    "cache_mem 8 MB",
    "visible_hostname petstore-squid-test",
    `hosts_file ${dir}/hosts`,
    "dns_nameservers 127.0.0.1",
    "pinger_enable off",
    "icp_port 0",
    "htcp_port 0",
    "shutdown_lifetime 0 seconds",
    `auth_param basic program /usr/lib/squid/basic_ncsa_auth ${dir}/passwd`,
    "auth_param basic children 1 startup=1 idle=1",
    "acl authenticated proxy_auth REQUIRED",
    "http_access allow authenticated",
    "http_access deny all",
    "",
  ].join("\n");
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}

async function started(child: ChildProcess, port: number): Promise<boolean> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null) {
    if (await listening(port)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export async function startSquid(options: SquidOptions): Promise<Squid> {
  const dir = mkdtempSync(join(tmpdir(), "petstore-squid-"));
  const root = process.getuid?.() === 0;
  writeFileSync(join(dir, "hosts"), options.hosts.map((host) => `127.0.0.1 ${host}\n`).join(""));
  writeFileSync(join(dir, "passwd"), `${options.user}:${apr1(options.password)}\n`, {
    mode: 0o600,
  });
  if (root) {
    const [uid, gid] = [idOf("-u", "proxy"), idOf("-g", "proxy")];
    for (const name of ["", "hosts", "passwd"]) chownSync(join(dir, name), uid, gid);
  }
  // A port found free may be taken before squid binds it: then another.
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await unusedPort();
    writeFileSync(join(dir, "squid.conf"), config(dir, port, root));
    const child = spawn(SQUID, ["-N", "-f", join(dir, "squid.conf")], { stdio: "ignore" });
    if (await started(child, port)) {
      return {
        url: `http://127.0.0.1:${port}`,
        port,
        accessLog: () => {
          try {
            return readFileSync(join(dir, "access.log"), "utf8");
          } catch {
            return "";
          }
        },
        async stop() {
          await stopped(child);
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await stopped(child);
  }
  const log = readFileSync(join(dir, "cache.log"), "utf8");
  rmSync(dir, { recursive: true, force: true });
  throw new Error(`squid did not start: ${log.slice(-2000)}`);
}
