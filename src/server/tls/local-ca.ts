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
 * Both files are companions of the data file, as the write-ahead log is: never
 * followed through a symlink, refused unless a regular file of ours with a single
 * name, and replaced by writing a temporary file and renaming it over the name.
 *
 * "Private" is what the platform can tell (files/file-safety.ts): on POSIX, a
 * key of this user that no one else may read (mode 0600); on Windows, where
 * modes read 0666 and ACLs cannot be read, a key that is a regular file of one
 * name, not a link; whether others may read it depends on the folder's ACL, so
 * serve says so when the key is outside the user's profile directory (private
 * by its default ACL).
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { lstat, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../../files/atomic-write.js";
import {
  isMissing,
  openNoFollow,
  ownershipProblem,
  syncDirectory,
  THIS_PLATFORM,
  unknownReaders,
  type FilePlatform,
} from "../../files/file-safety.js";
import { ServerConfigError } from "../config-error.js";
import { clearLeftover, companionProblem, refuseCompanion } from "../store/file-kinds.js";
import { asStoreError } from "../store/store-errors.js";
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
/** Far more than a certificate or a key: a larger file is not one serve wrote. */
const MAX_PEM_BYTES = 1024 * 1024;

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

const day = (date: Date) => date.toISOString().slice(0, 10);

function attempt<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

interface Companion {
  text: string;
  stats: Stats;
}

/** The text of a CA file, or undefined when there is none; refuses one serve must not touch. */
async function readCompanion(file: string): Promise<Companion | undefined> {
  let handle: FileHandle;
  try {
    handle = await openNoFollow(file, constants.O_RDONLY);
  } catch (error) {
    if (isMissing(error)) return undefined;
    if ((error as NodeJS.ErrnoException).code !== "ELOOP") {
      throw asStoreError(error, `Cannot read ${file}`);
    }
    throw refuseCompanion(companionProblem(file, await lstat(file)) ?? `${file} is a symlink.`);
  }
  try {
    const stats = await handle.stat();
    const problem =
      companionProblem(file, stats) ??
      (stats.size > MAX_PEM_BYTES
        ? `${file} is ${stats.size} bytes, too large to be a PEM file serve wrote.`
        : undefined);
    if (problem !== undefined) throw refuseCompanion(problem);
    return { text: await handle.readFile("latin1"), stats };
  } finally {
    await handle.close();
  }
}

/** Why the CA on disk cannot be used any more, or undefined when it can. */
function reuseProblem(
  certificate: X509Certificate,
  key: Companion | undefined,
  keyFile: string,
  now: Date,
  platform: FilePlatform,
): string | undefined {
  if (key === undefined) return `its key ${keyFile} is missing`;
  const exposed = ownershipProblem(key.stats, { othersMay: "nothing" }, platform);
  if (exposed !== undefined && exposed.kind !== "owner") {
    return `its key ${keyFile} could be read by other users (mode ${exposed.mode.toString(8).padStart(4, "0")})`;
  }
  const privateKey = attempt(() => createPrivateKey(key.text));
  if (privateKey?.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
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
  const problem = reuseProblem(certificate, key, paths.key, now, context.platform);
  if (problem !== undefined) return `the one there could not be used: ${problem}`;
  return { pair: { cert: cert.text, key: key!.text }, notAfter: new Date(certificate.validTo) };
}

async function makeNew(now: Date): Promise<{ pair: PemPair; notAfter: Date }> {
  const { makeCa } = await import("./make-certificates.js");
  const notAfter = new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS);
  const pair = await makeCa(CA_SUBJECT, new Date(now.getTime() - BACKDATE_MS), notAfter);
  return { pair, notAfter };
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
  const keyNote = unknownReaders(paths.key, context.env, context.platform);
  const existing = await existingCa(paths, now, context);
  if (typeof existing !== "string") return { ...existing, keyNote };
  const made = await makeNew(now);
  const created: string[] = [];
  try {
    // The key first: a crash between the two renames leaves the old certificate
    // with the new key, a pair that does not match, which the next start replaces.
    for (const [file, text, mode] of [
      [paths.key, made.pair.key, 0o600],
      [paths.cert, made.pair.cert, 0o644],
    ] as const) {
      const isNew = await lstat(file).then(() => false, isMissing);
      await clearLeftover(`${file}.tmp`);
      await writeFileAtomic(file, `${file}.tmp`, text, mode).catch((error: unknown) => {
        throw asStoreError(error, `Cannot write ${file}`);
      });
      if (isNew) created.push(file);
    }
    await syncDirectory(path.dirname(paths.cert));
  } catch (error) {
    await removeCreated(created);
    throw error;
  }
  return { ...made, madeBecause: existing, keyNote, created };
}

/** Removes the CA files a start wrote anew, once it failed: it leaves nothing behind. */
export async function removeCreated(files: readonly string[]): Promise<void> {
  for (const file of files) await unlink(file).catch(() => {});
  if (files.length > 0) await syncDirectory(path.dirname(files[0]!)).catch(() => {});
}
