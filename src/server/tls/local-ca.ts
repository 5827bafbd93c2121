/**
 * The local certificate authority of `serve --tls`. It is kept next to the data
 * file, `<file>.ca.pem` (the certificate clients trust, mode 0644) and
 * `<file>.ca-key.pem` (its private key, mode 0600), and reused at every start
 * while it is valid for 30 more days and its key is its own and private, so
 * whatever was set up to trust it keeps working. Otherwise a new one is made and
 * replaces both files, and the caller says why. A certificate under that name
 * that serve did not make is never replaced. Without a data file the CA lives in
 * memory only. Both files are companions of the data file, as the write-ahead
 * log is (files/atomic-write.ts).
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
import {
  lstatIfThere,
  ownershipProblem,
  THIS_PLATFORM,
  unknownReaders,
  type FilePlatform,
} from "../../files/file-safety.js";
import { ServerConfigError } from "../config-error.js";
import type { PemPair, Subject } from "./make-certificates.js";

export const CA_SUBJECT: Subject = {
  commonName: "petstore serve local CA",
  organization: "petstore-cli, for development only",
};
const CA_VALIDITY_DAYS = 3650;
/** A CA with less time left than this is replaced at start-up. */
const CA_RENEW_DAYS = 30;
const DAY_MS = 86_400_000;
/** Certificates start an hour in the past: a client's clock may be a little behind. */
export const BACKDATE_MS = 3_600_000;

export interface CaPaths {
  cert: string;
  key: string;
}

/** Where the CA of the data file `dataFile` is kept (absolute paths). */
export function caPaths(dataFile: string): CaPaths {
  const base = path.resolve(dataFile);
  return { cert: `${base}.ca.pem`, key: `${base}.ca-key.pem` };
}

export interface LocalCa {
  pair: PemPair;
  notAfter: Date;
  /** Why a new CA was made (not written yet: `saveCa`); undefined when the one on disk is reused. */
  madeBecause?: string;
  /** What could not be checked about who may read the key (Windows, outside the profile). */
  keyNote?: string;
}

/** The platform whose checks apply, and the environment that says where the profile is. */
export interface CaContext {
  platform: FilePlatform;
  env: NodeJS.ProcessEnv;
}

const HERE: CaContext = { platform: THIS_PLATFORM, env: process.env };

const day = (date: Date) => date.toISOString().slice(0, 10);

function attempt<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

/**
 * The CA kept at `paths` when it can be used as it is, else why a new one is
 * needed. Refuses (without changing anything) files serve must not replace.
 */
export async function existingCa(
  paths: CaPaths,
  now: Date,
  context: CaContext = HERE,
): Promise<LocalCa | string> {
  const cert = await readCompanion(paths.cert);
  const key = await readCompanion(paths.key);
  if (cert === undefined) return key === undefined ? "there was none" : `${paths.cert} was missing`;
  const certificate = attempt(() => new X509Certificate(cert.text));
  if (
    certificate?.ca !== true ||
    !certificate.subject.split("\n").includes(`CN=${CA_SUBJECT.commonName}`)
  ) {
    throw new ServerConfigError(
      `${paths.cert} is not a CA certificate that serve made, so serve will not replace it. ` +
        "Move it away, or serve a certificate of your own with --tls-cert and --tls-key.",
    );
  }
  const notAfter = new Date(certificate.validTo);
  const why = (problem: string) => `the one there could not be used: ${problem}`;
  if (key === undefined) return why(`its key ${paths.key} is missing`);
  const exposed = ownershipProblem(key.stat, { othersMay: "nothing" }, context.platform);
  if (exposed !== undefined && exposed.kind !== "owner") {
    const mode = exposed.mode.toString(8).padStart(4, "0");
    return why(`its key ${paths.key} could be read by other users (mode ${mode})`);
  }
  // The certificate is serve's, so a key that is its own is an ECDSA P-256 key.
  const privateKey = attempt(() => createPrivateKey(key.text));
  if (!privateKey || !certificate.checkPrivateKey(privateKey)) {
    return why(`its key ${paths.key} is not its own`);
  }
  if (now < new Date(certificate.validFrom)) {
    return why(`it is not valid before ${day(new Date(certificate.validFrom))}`);
  }
  if (now > notAfter) return why(`it expired on ${day(notAfter)}`);
  if (notAfter.getTime() - now.getTime() < CA_RENEW_DAYS * DAY_MS) {
    return why(`it expires on ${day(notAfter)}, in less than ${CA_RENEW_DAYS} days`);
  }
  return { pair: { cert: cert.text, key: key.text }, notAfter };
}

/**
 * The CA kept at `paths` when it can be reused, else a new one (`madeBecause`), not
 * written yet; without `paths`, a new one in memory.
 */
export async function localCa(
  paths: CaPaths | undefined,
  now: Date,
  context: CaContext = HERE,
): Promise<LocalCa> {
  const existing = paths === undefined ? "no data file" : await existingCa(paths, now, context);
  const keyNote = paths && unknownReaders(paths.key, context.env, context.platform);
  if (typeof existing !== "string") return { ...existing, keyNote };
  const { makeCa } = await import("./make-certificates.js");
  const notAfter = new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS);
  const pair = await makeCa(CA_SUBJECT, new Date(now.getTime() - BACKDATE_MS), notAfter);
  return { pair, notAfter, madeBecause: existing, keyNote };
}

/** Writes a new CA to `paths`; resolves to the files that did not exist before. */
export async function saveCa(paths: CaPaths, pair: PemPair): Promise<string[]> {
  const created: string[] = [];
  try {
    // The key first: a crash between the two leaves the old certificate with the new
    // key, a pair that does not match, which the next start replaces.
    for (const [file, text, mode] of [
      [paths.key, pair.key, 0o600],
      [paths.cert, pair.cert, 0o644],
    ] as const) {
      const isNew = lstatIfThere(file) === undefined;
      await writeFileAtomic(file, [text], { mode });
      if (isNew) created.push(file);
    }
  } catch (error) {
    await removeCreated(created);
    throw error;
  }
  return created;
}

/** Removes the CA files a start wrote anew, once it failed: it leaves nothing behind. */
export async function removeCreated(files: readonly string[]): Promise<void> {
  for (const file of files) await unlink(file).catch(() => {});
}
