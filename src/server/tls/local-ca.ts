/**
 * The local certificate authority of `serve --tls`. It is kept next to the data
 * file, `<file>.ca.pem` (the certificate clients trust, mode 0644) and
 * `<file>.ca-key.pem` (its private key, mode 0600), and reused at every start
 * while it is valid for 30 more days and its key is its own and private, so
 * whatever was set up to trust it keeps working. Otherwise a new one is made and
 * replaces both files, and the caller says why. A certificate under that name
 * that serve did not make is never replaced. Without a data file the CA lives in
 * memory only.
 *
 * "Private" is what the platform can tell (files/file-safety.ts): on POSIX, a
 * key of this user that no one else may read (mode 0600); on Windows, where
 * modes read 0666 and ACLs cannot be read, a key that is a regular file of one
 * name, not a link; whether others may read it depends on the folder's ACL, so
 * serve says so when the key is outside the user's profile directory (private
 * by its default ACL).
 */
import { createPrivateKey, X509Certificate, type KeyObject } from "node:crypto";
import { lstat, unlink } from "node:fs/promises";
import path from "node:path";
import { ServerConfigError } from "../config-error.js";
import {
  isMissing,
  ownershipProblem,
  syncDirectory,
  THIS_PLATFORM,
  unknownReaders,
  type FilePlatform,
} from "../../files/file-safety.js";
import type { PemPair, Subject } from "./make-certificates.js";
import { readCompanion, writeCompanion, type CompanionText } from "./pem-files.js";

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
  /** Why a new CA was made; undefined when the one on disk was reused. */
  madeBecause?: string;
  /** What could not be checked about who may read the key (Windows, outside the profile). */
  keyNote?: string;
  /** The files written that did not exist before (for a start that fails). */
  created?: string[];
}

/** The platform whose checks apply, and the environment that says where the profile is. */
export interface CaContext {
  platform: FilePlatform;
  env: NodeJS.ProcessEnv;
}

const HERE: CaContext = { platform: THIS_PLATFORM, env: process.env };

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The certificate in `text`, if it is a CA that serve made; else a ServerConfigError naming `file`. */
function ownCertificate(text: string, file: string): X509Certificate {
  let certificate: X509Certificate | undefined;
  try {
    certificate = new X509Certificate(text);
  } catch {
    certificate = undefined;
  }
  if (
    certificate === undefined ||
    !certificate.ca ||
    !certificate.subject.split("\n").includes(`CN=${CA_SUBJECT.commonName}`)
  ) {
    throw new ServerConfigError(
      `${file} is not a CA certificate that serve made, so serve will not replace it. ` +
        "Move it away, or serve a certificate of your own with --tls-cert and --tls-key.",
    );
  }
  return certificate;
}

function readKey(text: string): KeyObject | undefined {
  try {
    return createPrivateKey(text);
  } catch {
    return undefined;
  }
}

/** Why the CA on disk cannot be used any more, or undefined when it can. */
function reuseProblem(
  certificate: X509Certificate,
  key: CompanionText | undefined,
  keyFile: string,
  now: Date,
  platform: FilePlatform,
): string | undefined {
  if (key === undefined) return `its key ${keyFile} is missing`;
  const exposed = ownershipProblem(key, { othersMay: "nothing" }, platform);
  if (exposed !== undefined && exposed.kind !== "owner") {
    return `its key ${keyFile} could be read by other users (mode ${exposed.mode.toString(8).padStart(4, "0")})`;
  }
  const privateKey = readKey(key.text);
  if (
    privateKey === undefined ||
    privateKey.asymmetricKeyType !== "ec" ||
    privateKey.asymmetricKeyDetails?.namedCurve !== "prime256v1"
  ) {
    return `its key ${keyFile} is not an ECDSA P-256 private key`;
  }
  if (!certificate.checkPrivateKey(privateKey)) return `its key ${keyFile} is not its own`;
  const notBefore = new Date(certificate.validFrom);
  const notAfter = new Date(certificate.validTo);
  if (now < notBefore) return `it is not valid before ${day(notBefore)}`;
  if (now > notAfter) return `it expired on ${day(notAfter)}`;
  if (notAfter.getTime() - now.getTime() < CA_RENEW_DAYS * DAY_MS) {
    return `it expires on ${day(notAfter)}, in less than ${CA_RENEW_DAYS} days`;
  }
  return undefined;
}

async function makeNew(now: Date): Promise<{ pair: PemPair; notAfter: Date }> {
  const { makeCa } = await import("./make-certificates.js");
  const notAfter = new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS);
  const pair = await makeCa(CA_SUBJECT, new Date(now.getTime() - BACKDATE_MS), notAfter);
  return { pair, notAfter };
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
  const certificate = ownCertificate(cert.text, paths.cert);
  const problem = reuseProblem(certificate, key, paths.key, now, context.platform);
  if (problem !== undefined) return `the one there could not be used: ${problem}`;
  return { pair: { cert: cert.text, key: key!.text }, notAfter: new Date(certificate.validTo) };
}

/**
 * The CA kept at `paths` (reused, or made and written there), or a new one in
 * memory when `paths` is undefined.
 */
export async function localCa(
  paths: CaPaths | undefined,
  now: Date,
  context: CaContext = HERE,
): Promise<LocalCa> {
  if (paths === undefined) return { ...(await makeNew(now)), madeBecause: "no data file" };
  const note = unknownReaders(paths.key, context.env, context.platform);
  const existing = await existingCa(paths, now, context);
  if (typeof existing !== "string") return { ...existing, keyNote: note };
  const madeBecause = existing;
  const made = await makeNew(now);
  const created: string[] = [];
  try {
    // The key first: a crash between the two renames leaves the old certificate
    // with the new key, a pair that does not match, which the next start replaces.
    for (const [file, text, mode] of [
      [paths.key, made.pair.key, 0o600],
      [paths.cert, made.pair.cert, 0o644],
    ] as const) {
      const isNew = await lstat(file).then(
        () => false,
        (error: unknown) => isMissing(error),
      );
      await writeCompanion(file, text, mode);
      if (isNew) created.push(file);
    }
    await syncDirectory(path.dirname(paths.cert));
  } catch (error) {
    await removeCreated(created);
    throw error;
  }
  return { ...made, madeBecause, keyNote: note, created };
}

/** Removes the CA files a start wrote anew, once it failed: it leaves nothing behind. */
export async function removeCreated(files: readonly string[]): Promise<void> {
  for (const file of files) await unlink(file).catch(() => {});
  if (files.length > 0) await syncDirectory(path.dirname(files[0]!)).catch(() => {});
}
