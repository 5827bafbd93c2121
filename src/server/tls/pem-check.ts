/**
 * Checks a certificate and private key given for TLS (`serve --tls-cert/--tls-key`,
 * `startServer({ tls: { cert, key } })`) with node:crypto, before the server starts:
 * each must be PEM of the right kind, the key unencrypted and the certificate's
 * own. Every problem is a ServerConfigError naming what was given (`label`).
 */
import { createPrivateKey, X509Certificate, type KeyObject } from "node:crypto";
import { createSecureContext } from "node:tls";
import { ServerConfigError } from "../config-error.js";

/** What was given, for messages: `--tls-cert ./cert.pem`, `tls.cert`. */
export interface PairLabels {
  cert: string;
  key: string;
}

export interface CheckedPair {
  certificate: X509Certificate;
  privateKey: KeyObject;
}

const CERTIFICATE_BLOCK = "-----BEGIN CERTIFICATE-----";
const PRIVATE_KEY_BLOCK = /-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----/;

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The first certificate of `pem` (a chain may follow it). */
function parseCertificate(pem: string, label: string): X509Certificate {
  if (!pem.includes(CERTIFICATE_BLOCK)) {
    const hint = PRIVATE_KEY_BLOCK.test(pem)
      ? " It holds a private key: were the certificate and the key swapped?"
      : "";
    throw new ServerConfigError(
      `${label}: not a PEM certificate (no "${CERTIFICATE_BLOCK}" line).${hint}`,
    );
  }
  try {
    return new X509Certificate(pem);
  } catch (error) {
    throw new ServerConfigError(`${label}: the certificate cannot be read (${reason(error)}).`);
  }
}

/** The private key in `pem`, which must not be encrypted. */
function parsePrivateKey(pem: string, label: string): KeyObject {
  const block = PRIVATE_KEY_BLOCK.exec(pem);
  if (block === null) {
    const hint = pem.includes(CERTIFICATE_BLOCK)
      ? " It holds a certificate: were the certificate and the key swapped?"
      : "";
    throw new ServerConfigError(`${label}: not a PEM private key.${hint}`);
  }
  if (block[1] === "ENCRYPTED PRIVATE KEY" || pem.includes("Proc-Type: 4,ENCRYPTED")) {
    throw new ServerConfigError(
      `${label}: the private key is encrypted, and serve cannot ask for its passphrase. ` +
        "Give it unencrypted (openssl pkey -in <key> -out <plain key>).",
    );
  }
  try {
    return createPrivateKey(pem);
  } catch (error) {
    throw new ServerConfigError(`${label}: the private key cannot be read (${reason(error)}).`);
  }
}

/**
 * Checks that `cert` and `key` make a usable pair: both readable, the key the
 * certificate's, and both accepted by the TLS layer.
 */
export function checkPair(cert: string, key: string, labels: PairLabels): CheckedPair {
  const certificate = parseCertificate(cert, labels.cert);
  const privateKey = parsePrivateKey(key, labels.key);
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ServerConfigError(
      `${labels.key} is not the private key of the certificate in ${labels.cert} (${certificate.subject.replace(/\n/g, ", ")}).`,
    );
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new ServerConfigError(
      `${labels.cert} and ${labels.key}: the TLS layer refuses them (${reason(error)}).`,
    );
  }
  return { certificate, privateKey };
}

/** Whether `certificate` is its own issuer (so a client can trust it directly). */
export function isSelfSigned(certificate: X509Certificate): boolean {
  return certificate.checkIssued(certificate) && certificate.verify(certificate.publicKey);
}

/** A warning when `certificate` is not valid at `now` (clients will refuse it), else undefined. */
export function validityWarning(certificate: X509Certificate, now: Date): string | undefined {
  const from = new Date(certificate.validFrom);
  const to = new Date(certificate.validTo);
  if (now > to) {
    return `the TLS certificate expired on ${to.toISOString()}: clients will refuse it`;
  }
  if (now < from) {
    return `the TLS certificate is not valid before ${from.toISOString()}: clients will refuse it until then`;
  }
  return undefined;
}
