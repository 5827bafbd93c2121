/**
 * `petstore serve --tls-cert/--tls-key` with bad input, as a real process: each is
 * refused with exit 2 and a message naming the file, before the data file is
 * created. Devices, FIFOs and directories are refused, never read or waited on;
 * and so is a CA file next to the data file that serve did not make (`--tls`).
 */
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ensureBuilt, REPO_ROOT } from "./cli-build.js";
import { killServes, runServe } from "./serve-process.js";

const FIXTURE_CERT = join(REPO_ROOT, "test", "fixtures", "tls", "localhost.crt");
const FIXTURE_KEY = join(REPO_ROOT, "test", "fixtures", "tls", "localhost.key");

let root: string;
let dir: string;
let count = 0;

beforeAll(async () => {
  await ensureBuilt();
  root = await mkdtemp(join(tmpdir(), "petstore-serve-tls-"));
});
beforeEach(async () => {
  dir = join(root, String(++count));
  await mkdir(dir);
});
afterEach(killServes);
afterAll(() => rm(root, { recursive: true, force: true }));

/** Runs serve with `tlsArgs` on a new data file; it must refuse with exit 2 and `message`. */
async function expectRefused(tlsArgs: string[], message: string): Promise<void> {
  const file = join(dir, "pets.json");
  const result = await runServe(["--file", file, "--port", "0", "--key", "k", ...tlsArgs], {
    cwd: dir,
  });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toContain(message);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(existsSync(file)).toBe(false);
}

const pair = (cert: string, key: string) => ["--tls-cert", cert, "--tls-key", key];

describe("serve --tls-cert and --tls-key", () => {
  it("needs both", async () => {
    const both = "--tls-cert and --tls-key go together: a certificate and its key";
    await expectRefused(["--tls-cert", FIXTURE_CERT], both);
    await expectRefused(["--tls-key", FIXTURE_KEY], both);
  });

  it("names a file that does not exist", async () => {
    const missing = join(dir, "missing.pem");
    await expectRefused(
      pair(missing, FIXTURE_KEY),
      `--tls-cert ${missing}: cannot read it (no such file).`,
    );
  });

  it("refuses a FIFO, a device and a directory without reading them", async () => {
    const fifo = join(dir, "cert.fifo");
    execFileSync("mkfifo", [fifo]);
    await expectRefused(
      pair(fifo, FIXTURE_KEY),
      `--tls-cert ${fifo}: it is a FIFO (named pipe), not a regular file.`,
    );
    const device = join(dir, "null");
    execFileSync("mknod", [device, "c", "1", "3"]);
    await expectRefused(
      pair(FIXTURE_CERT, device),
      `--tls-key ${device}: it is a character device, not a regular file.`,
    );
    await expectRefused(
      pair(dir, FIXTURE_KEY),
      `--tls-cert ${dir}: it is a directory, not a regular file.`,
    );
  });

  it("follows a symlink, and names the link and its target when the target is no file", async () => {
    const fifo = join(dir, "key.fifo");
    execFileSync("mkfifo", [fifo]);
    const link = join(dir, "key.pem");
    await symlink(fifo, link);
    await expectRefused(
      pair(FIXTURE_CERT, link),
      `--tls-key ${link}: it is a symlink to ${fifo}, which is a FIFO (named pipe), not a regular file.`,
    );
  });

  it("refuses a file past 1 MiB, one byte over", async () => {
    const large = join(dir, "large.pem");
    await writeFile(large, Buffer.alloc(1024 * 1024 + 1, 0x41));
    await expectRefused(
      pair(large, FIXTURE_KEY),
      `--tls-cert ${large}: 1048577 bytes is too large for a PEM file (at most 1048576).`,
    );
  });

  it("refuses an empty file and text that is not PEM", async () => {
    const empty = join(dir, "empty.pem");
    await writeFile(empty, "");
    await expectRefused(
      pair(empty, FIXTURE_KEY),
      `--tls-cert ${empty}: not a PEM certificate (error:0480006C:PEM routines::no start line).`,
    );
    const notes = join(dir, "notes.pem");
    await writeFile(notes, "hello\n");
    await expectRefused(
      pair(FIXTURE_CERT, notes),
      `--tls-key ${notes}: not an unencrypted PEM private key (error:`,
    );
  });

  it("names the file that is not what its flag takes when the certificate and the key are swapped", async () => {
    await expectRefused(
      pair(FIXTURE_KEY, FIXTURE_CERT),
      `--tls-cert ${FIXTURE_KEY}: not a PEM certificate (`,
    );
  });

  it("refuses a pair that Node's TLS layer refuses, with its reason", async () => {
    const weakKey = join(dir, "weak.key");
    const weakCert = join(dir, "weak.crt");
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:512", "-nodes", "-subj", "/CN=weak", "-days", "2"].concat([
        "-keyout",
        weakKey,
        "-out",
        weakCert,
      ]),
      { stdio: "ignore" },
    );
    await expectRefused(
      pair(weakCert, weakKey),
      `--tls-cert ${weakCert} and --tls-key ${weakKey}: not a pair the TLS layer takes (error:0A00018F:SSL routines::ee key too small).`,
    );
  });

  it("refuses a key that is not the certificate's, naming both files", async () => {
    const other = join(dir, "other.key");
    const { privateKey } = generateKeyPairSync("ec", {
      namedCurve: "P-256",
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    await writeFile(other, privateKey);
    await expectRefused(
      pair(FIXTURE_CERT, other),
      `--tls-key ${other} is not the private key of the certificate in --tls-cert ${FIXTURE_CERT} (CN=localhost)`,
    );
  });

  it("refuses an encrypted key, saying it must be unencrypted", async () => {
    const encrypted = join(dir, "encrypted.key");
    const { privateKey } = generateKeyPairSync("ec", {
      namedCurve: "P-256",
      privateKeyEncoding: {
        type: "pkcs8",
        format: "pem",
        cipher: "aes-256-cbc",
        passphrase: "secret",
      },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    await writeFile(encrypted, privateKey);
    await expectRefused(
      pair(FIXTURE_CERT, encrypted),
      `--tls-key ${encrypted}: not an unencrypted PEM private key (error:`,
    );
  });
});

describe("serve --tls next to a CA file serve did not make", () => {
  it("refuses to start, leaving the file as it was", async () => {
    const file = join(dir, "pets.json");
    const foreign = await readFile(FIXTURE_CERT, "utf8");
    await writeFile(`${file}.ca.pem`, foreign);
    await expectRefused(["--tls"], `${file}.ca.pem is not a CA certificate that serve made`);
    expect(await readFile(`${file}.ca.pem`, "utf8")).toBe(foreign);
    expect(existsSync(`${file}.ca-key.pem`)).toBe(false);
  });
});
