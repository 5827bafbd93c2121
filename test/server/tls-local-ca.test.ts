/**
 * The local CA of `startServer({ tls: true, file })` on real files: reused while
 * valid, its key private and its own; replaced (with a note saying why) when it
 * is not; and files serve must not replace refused with nothing left behind,
 * left as they were.
 */
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync } from "node:fs";
import {
  chmod,
  chown,
  link,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/server/server.js";
import { CA_NAME } from "../../src/server/tls/local-ca.js";
import { makeCa } from "../../src/server/tls/make-certificates.js";
import { REPO_ROOT } from "./cli-build.js";
import { startTestServer } from "./http.js";

const DAY_MS = 86_400_000;
const FIXTURE_CERT = join(REPO_ROOT, "test", "fixtures", "tls", "localhost.crt");
const VICTIM = "a file serve must never write\n";
type PemPair = Awaited<ReturnType<typeof makeCa>>;

let root: string;
let dir: string;
let file: string;
let count = 0;
let server: (RunningServer & { logText: () => string }) | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "petstore-local-ca-"));
});
beforeEach(async () => {
  dir = join(root, String(++count));
  await mkdir(dir);
  file = join(dir, "pets.json");
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => rm(root, { recursive: true, force: true }));

const certFile = () => `${file}.ca.pem`;
const keyFile = () => `${file}.ca-key.pem`;

/** A CA with serve's subject, valid between the two offsets from now (days). */
function ownCa(fromDays: number, toDays: number): Promise<PemPair> {
  const now = Date.now();
  return makeCa(CA_NAME, new Date(now + fromDays * DAY_MS), new Date(now + toDays * DAY_MS));
}

async function plant(ca: PemPair, keyMode = 0o600): Promise<void> {
  await writeFile(certFile(), ca.cert);
  await writeFile(keyFile(), ca.key, { mode: keyMode });
  await chmod(keyFile(), keyMode);
}

/** Starts on `file` with tls: true, stops, and gives the log, the CA and the certificate it served. */
async function startAndStop(): Promise<{ log: string; ca: string; served: X509Certificate }> {
  server = await startTestServer({ file, tls: true });
  const ca = server.tls!.ca!;
  const socket = connect({ port: server.port, host: "127.0.0.1", ca, servername: "localhost" });
  await once(socket, "secureConnect");
  const served = socket.getPeerX509Certificate()!;
  socket.destroy();
  await server.close();
  const log = server.logText();
  server = undefined;
  return { log, ca, served };
}

async function expectReplaced(reason: string, old: PemPair): Promise<void> {
  const { log, ca } = await startAndStop();
  expect(log).toContain(`made a new local CA, ${certFile()}`);
  expect(log).toContain(reason);
  expect(ca).not.toBe(old.cert);
  expect(await readFile(certFile(), "utf8")).toBe(ca);
  const certificate = new X509Certificate(ca);
  expect(Date.parse(certificate.validTo) - Date.now()).toBeGreaterThan(3000 * DAY_MS);
  expect(
    certificate.checkPrivateKey(
      (await import("node:crypto")).createPrivateKey(await readFile(keyFile())),
    ),
  ).toBe(true);
  expect((await lstat(keyFile())).mode & 0o777).toBe(0o600);
  expect(existsSync(`${certFile()}.tmp`) || existsSync(`${keyFile()}.tmp`)).toBe(false);
}

describe("the local CA next to the data file", () => {
  it("is reused while it has more than 30 days left", async () => {
    const ca = await ownCa(-1, 31);
    await plant(ca);
    const { log, ca: reused, served } = await startAndStop();
    expect(reused).toBe(ca.cert);
    // The server certificate ends with its CA, before its 397 days.
    expect(served.validTo).toBe(new X509Certificate(ca.cert).validTo);
    expect(log).not.toContain("made a new local CA");
    expect(await readFile(keyFile(), "utf8")).toBe(ca.key);
  });

  it("is replaced when it has expired", async () => {
    const ca = await ownCa(-20, -1);
    await plant(ca);
    await expectReplaced("the one there could not be used: it is valid only until", ca);
  });

  it("is replaced when it expires within 30 days", async () => {
    const ca = await ownCa(-1, 29);
    await plant(ca);
    await expectReplaced("less than 30 days from now", ca);
  });

  it("is replaced when its key could be read by other users", async () => {
    const ca = await ownCa(-1, 400);
    await plant(ca, 0o644);
    await expectReplaced(`its key ${keyFile()} could be read by other users (mode 0644)`, ca);
  });

  it("is replaced when its key is another CA's", async () => {
    const ca = await ownCa(-1, 400);
    await plant({ cert: ca.cert, key: (await ownCa(-1, 400)).key });
    await expectReplaced(`its key ${keyFile()} is not its own`, ca);
  });

  it("is replaced when its key is missing, or the certificate is", async () => {
    const ca = await ownCa(-1, 400);
    await writeFile(certFile(), ca.cert);
    await expectReplaced(`its key ${keyFile()} is missing`, ca);
    await rm(certFile());
    const kept = await readFile(keyFile(), "utf8");
    await expectReplaced(`${certFile()} was missing`, { cert: "", key: kept });
    expect(await readFile(keyFile(), "utf8")).not.toBe(kept);
  });
});

/** Starting must fail with `message`, leaving no data file nor lock behind. */
async function expectRefused(message: string | RegExp): Promise<void> {
  await expect(startTestServer({ file, tls: true })).rejects.toThrow(message);
  expect(existsSync(file)).toBe(false);
  expect(existsSync(`${file}.lock`)).toBe(false);
}

describe("CA files serve must not replace", () => {
  it("refuses a certificate that serve did not make, and leaves it as it was", async () => {
    const foreign = await readFile(FIXTURE_CERT, "utf8");
    await writeFile(certFile(), foreign);
    await expectRefused(`${certFile()} is not a CA certificate that serve made`);
    expect(await readFile(certFile(), "utf8")).toBe(foreign);
  });

  it("refuses text that is not a certificate under the name", async () => {
    await writeFile(certFile(), "my notes\n");
    await expectRefused("is not a CA certificate that serve made");
    expect(await readFile(certFile(), "utf8")).toBe("my notes\n");
  });

  it("refuses a symlink planted as the certificate, and never writes where it points", async () => {
    const victim = join(dir, "victim.txt");
    await writeFile(victim, VICTIM);
    await symlink(victim, certFile());
    await expectRefused(
      `${certFile()} is a symbolic link; serve writes this file itself and never follows a symlink there.`,
    );
    expect(await readlink(certFile())).toBe(victim);
    expect(await readFile(victim, "utf8")).toBe(VICTIM);
  });

  it("refuses a key file owned by another user, leaving it as it was", async () => {
    await writeFile(keyFile(), VICTIM, { mode: 0o600 });
    await chown(keyFile(), 4242, 4242);
    await expectRefused(`${keyFile()} is owned by user 4242`);
    expect(await readFile(keyFile(), "utf8")).toBe(VICTIM);
  });

  it("refuses a key file that is a hard link to another file", async () => {
    const other = join(dir, "other.pem");
    await writeFile(other, VICTIM, { mode: 0o600 });
    await link(other, keyFile());
    await expectRefused(`${keyFile()} has 2 names (hard links)`);
    expect(await readFile(other, "utf8")).toBe(VICTIM);
  });

  it("refuses a FIFO as the key file without blocking on it", async () => {
    execFileSync("mkfifo", [keyFile()]);
    await expectRefused(
      `${keyFile()} is a FIFO (named pipe); serve writes a regular file under this name.`,
    );
    expect((await lstat(keyFile())).isFIFO()).toBe(true);
  });

  it("never writes through a symlink planted as the temporary file", async () => {
    const victim = join(dir, "victim.txt");
    await writeFile(victim, VICTIM);
    await symlink(victim, `${keyFile()}.tmp`);
    await expect(startTestServer({ file, tls: true })).rejects.toThrow(
      `${keyFile()}.tmp is a symbolic link`,
    );
    expect(await readFile(victim, "utf8")).toBe(VICTIM);
    expect(existsSync(keyFile())).toBe(false);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});
