/**
 * The certificate `serve --tls` makes at each start, for localhost, 127.0.0.1,
 * ::1 and the address listened on, valid for 397 days (or until the CA expires,
 * if sooner), its key in memory only; and the local certificate authority that
 * signs it. The CA is kept next to the data file, `<file>.ca.pem` (the
 * certificate clients trust, mode 0644) and `<file>.ca-key.pem` (its private
 * key, mode 0600), and reused at every start while it is valid for 30 more days
 * and its key is its own and private, so whatever was set up to trust it keeps
 * working. Otherwise a new one is made and replaces both files, and serve says
 * why. A certificate under that name that serve did not make is never replaced.
 * Without a data file the CA lives in memory only. Both files are companions of
 * the data file, as the write-ahead log is (files/atomic-write.ts).
 *
 * "Private" is what the platform can tell (files/file-safety.ts): on POSIX, a
 * key of this user that no one else may read (mode 0600); on Windows, where
 * modes read 0666 and ACLs cannot be read, a key that is a regular file of one
 * name, not a link; whether others may read it depends on the folder's ACL, so
 * serve says so when the key is outside the user's profile directory (private
 * by its default ACL).
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { unlink } from "node:fs/promises";
import path from "node:path";
import { readCompanion, writeFileAtomic } from "../../files/atomic-write.js";
import { lstatIfThere, ownershipProblem, unknownReaders } from "../../files/file-safety.js";
import { ServerConfigError } from "../config-error.js";

/** The common name that tells serve's CA from any other certificate. */
export const CA_NAME = "petstore serve local CA";

const day = (date: Date) => date.toISOString().slice(0, 10);
const later = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000);

function attempt<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

/** The names the made certificate is for: loopback, and `host` unless it is a wildcard. */
export function serverNames(host: string): string[] {
  const names = ["localhost", "127.0.0.1", "::1"];
  const name = host.toLowerCase();
  const wildcard = ["", "0.0.0.0", "::", "0:0:0:0:0:0:0:0"].includes(name);
  return wildcard || names.includes(name) ? names : [...names, name];
}

/**
 * A start of serve: its data file, the address it listens on, where notes go, and
 * the files it wrote anew, which a start that fails removes (removeCreated).
 */
export type TlsContext = {
  file?: string;
  host: string;
  note: (line: string) => void;
  created: string[];
};

/**
 * The CA kept at `files` (certificate and key) when it can be used as it is,
 * else why a new one is needed. Refuses (without changing anything) files serve
 * must not replace.
 */
function keptCa(files: { cert: string; key: string }, now: Date) {
  const cert = readCompanion(files.cert);
  const key = readCompanion(files.key);
  if (cert === undefined) return key === undefined ? "there was none" : `${files.cert} was missing`;
  const certificate = attempt(() => new X509Certificate(cert.text));
  if (certificate?.ca !== true || !certificate.subject.split("\n").includes(`CN=${CA_NAME}`)) {
    throw new ServerConfigError(
      `${files.cert} is not a CA certificate that serve made, so serve will not replace it. ` +
        "Move it away, or serve a certificate of your own with --tls-cert and --tls-key.",
    );
  }
  const notAfter = new Date(certificate.validTo);
  const why = (problem: string) => `the one there could not be used: ${problem}`;
  if (key === undefined) return why(`its key ${files.key} is missing`);
  const exposed = ownershipProblem(key.stat, { othersMay: "nothing" });
  if (exposed !== undefined && exposed.kind !== "owner") {
    const mode = exposed.mode.toString(8).padStart(4, "0");
    return why(`its key ${files.key} could be read by other users (mode ${mode})`);
  }
  if (!attempt(() => certificate.checkPrivateKey(createPrivateKey(key.text)))) {
    return why(`its key ${files.key} is not its own`);
  }
  // Replaced before it expires, with 30 days to spare.
  if (notAfter < later(now, 30)) {
    return why(`it is valid only until ${day(notAfter)}, less than 30 days from now`);
  }
  return { cert: cert.text, key: key.text };
}

/** Removes the CA files a start wrote anew, once it failed: it leaves nothing behind. */
export async function removeCreated(files: readonly string[]): Promise<void> {
  for (const file of files) await unlink(file).catch(() => {});
}

/**
 * A server certificate for `host`, signed by the CA kept next to `file` (in
 * memory without one). The CA is written, when it is new, only once the server
 * certificate is made; the files that did not exist before go in `created`, for
 * a start that fails to remove. `note` is told why a CA was made, and what could
 * not be checked about who may read its key.
 */
export async function caSignedCertificate({ file, host, note, created }: TlsContext) {
  const now = new Date();
  const base = file === undefined ? undefined : path.resolve(file);
  const files =
    base === undefined ? undefined : { cert: `${base}.ca.pem`, key: `${base}.ca-key.pem` };
  const kept = files === undefined ? "no data file" : keptCa(files, now);
  const { makeCa, makeServerCertificate } = await import("./make-certificates.js");
  const caUntil = later(now, 3650);
  const ca = typeof kept === "string" ? await makeCa(CA_NAME, now, caUntil) : kept;
  const pair = await makeServerCertificate(ca, serverNames(host), now, later(now, 397));
  const keyNote = files && unknownReaders(files.key, process.env);
  if (keyNote !== undefined) note(keyNote);
  if (files !== undefined && typeof kept === "string") {
    created.push(...[files.key, files.cert].filter((name) => lstatIfThere(name) === undefined));
    // The key first: a crash between the two leaves the old certificate with the new
    // key, a pair that does not match, which the next start replaces.
    await writeFileAtomic(files.key, [ca.key], { mode: 0o600 });
    await writeFileAtomic(files.cert, [ca.cert], { mode: 0o644 });
    note(
      `made a new local CA, ${files.cert}, valid until ${day(caUntil)} ` +
        `(${kept}); clients trust it with NODE_EXTRA_CA_CERTS=${files.cert}`,
    );
  }
  return { ...pair, ca: ca.cert, caFile: files?.cert };
}
