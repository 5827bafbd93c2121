/**
 * The `tls` option of `startServer`: `{ cert, key }` (PEM) serves that certificate;
 * `true` serves one signed by the local CA (local-ca.ts). Node's own parsers and
 * TLS layer check a given pair and name what is wrong with it.
 *
 * The TLS flags of `petstore serve` make that option: `--tls-cert <pem> --tls-key
 * <pem>` (both or neither) serve that certificate; `--tls` alone serves one signed
 * by the local CA kept next to the data file. The files are read and checked
 * first, so a problem stops serve before the data file is opened. They are read
 * as the data file is: a symlink is followed, but what it leads to must be a
 * regular file; a device, FIFO, socket or directory is refused, never read nor
 * waited on.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import type { Server as HttpsServer } from "node:https";
import path from "node:path";
import { createSecureContext } from "node:tls";
import * as z from "zod/mini";
import { strict } from "../check.js";
import { readGivenFile, ServerConfigError } from "../config-error.js";
import { caSignedCertificate, type TlsContext } from "./local-ca.js";

const PEM = z.union([z.string(), z.instanceof(Buffer)]);
type Pem = z.infer<typeof PEM>;
const RULE = "must be true or { cert, key } (PEM text)";
/** Node's checks of a given pair (checkPair) run here, before anything is opened. */
const Given = strict({ cert: PEM, key: PEM }, RULE).check(
  z.refine((pair) => checkPair(pair.cert, pair.key, { cert: "tls.cert", key: "tls.key" })),
);
/** false (as undefined) is plain http. */
export const TlsOption = z.union([z.boolean(), Given], { error: RULE });
export type TlsOption = z.infer<typeof TlsOption>;

/** `read()`, or a ServerConfigError: `label` is not `what`, and Node's (OpenSSL's) reason. */
function readPem<T>(label: string, what: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new ServerConfigError(`${label}: not ${what} (${(error as Error).message}).`);
  }
}

/**
 * Checks that `cert` and `key` (labelled for messages: `--tls-cert ./cert.pem`,
 * `tls.cert`) make a pair TLS can serve: Node reads both, the key is the
 * certificate's own and unencrypted (serve cannot ask for a passphrase), and
 * Node's TLS layer takes them. The key check is ours: the TLS layer takes a key
 * that is not the certificate's without a word.
 */
function checkPair(cert: Pem, key: Pem, labels: { cert: string; key: string }): X509Certificate {
  const certificate = readPem(labels.cert, "a PEM certificate", () => new X509Certificate(cert));
  const privateKey = readPem(labels.key, "an unencrypted PEM private key", () =>
    createPrivateKey(key),
  );
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ServerConfigError(
      `${labels.key} is not the private key of the certificate in ${labels.cert} (${certificate.subject.replace(/\n/g, ", ")}).`,
    );
  }
  readPem(`${labels.cert} and ${labels.key}`, "a pair the TLS layer takes", () =>
    createSecureContext({ cert, key }),
  );
  return certificate;
}

/** The TLS flags of `petstore serve`, as commander hands them over. */
export interface TlsFlags {
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
}

/**
 * The `tls` option, and the given certificate when it is self-signed: clients can
 * trust it directly (NODE_EXTRA_CA_CERTS). Absolute.
 */
export function planTls(flags: TlsFlags): { tls?: TlsOption; trustFile?: string } {
  const { tlsCert, tlsKey } = flags;
  if (tlsCert === undefined && tlsKey === undefined) return { tls: flags.tls };
  if (tlsCert === undefined || tlsKey === undefined) {
    throw new ServerConfigError("--tls-cert and --tls-key go together: a certificate and its key");
  }
  const labels = { cert: `--tls-cert ${tlsCert}`, key: `--tls-key ${tlsKey}` };
  // 1 MiB: far more than any certificate chain or key; a larger file is not one.
  const read = (file: string, label: string) =>
    readGivenFile(file, label, "a PEM file", 1024 * 1024, "latin1");
  const cert = read(tlsCert, labels.cert);
  const key = read(tlsKey, labels.key);
  const certificate = checkPair(cert, key, labels);
  const selfSigned =
    certificate.checkIssued(certificate) && certificate.verify(certificate.publicKey);
  return { tls: { cert, key }, trustFile: selfSigned ? path.resolve(tlsCert) : undefined };
}

/**
 * What the https server is started with. `note` gets a line for a given
 * certificate that is not valid now (clients will refuse it), and for a CA made anew.
 */
export async function setUpTls(option: Exclude<TlsOption, false>, context: TlsContext) {
  if (option === true) return caSignedCertificate(context);
  const { validFrom, validTo } = new X509Certificate(option.cert);
  if (Date.now() < Date.parse(validFrom) || Date.now() > Date.parse(validTo)) {
    context.note(
      `the TLS certificate is valid from ${validFrom} to ${validTo}: clients will refuse it now`,
    );
  }
  return { ...option, ca: undefined, caFile: undefined };
}

/**
 * Logs a TLS handshake that failed (Node closes the connection), at most once per
 * 10 seconds, with OpenSSL's reason and the trust that would fix it: a Node client
 * that does not trust the certificate just closes the connection ("socket
 * hang up"); curl, for one, sends "tlsv1 alert unknown ca".
 */
export function noteHandshakeFailures(
  server: HttpsServer,
  caFile: string | undefined,
  note: (line: string) => void,
): void {
  const trust = caFile === undefined ? "the certificate" : `the CA (NODE_EXTRA_CA_CERTS=${caFile})`;
  let notedAt = -Infinity;
  server.on("tlsClientError", (error: Error & { reason?: string }) => {
    const now = performance.now();
    if (now - notedAt < 10_000) return;
    notedAt = now;
    note(
      `a TLS handshake failed (${error.reason ?? error.message}): does the client trust ${trust}?`,
    );
  });
}
