/**
 * The TLS flags of `petstore serve`: `--tls-cert <pem> --tls-key <pem>` (both or
 * neither) serve that certificate; `--tls` alone serves one signed by the local CA
 * kept next to the data file. The files are read and checked here, so a problem
 * stops serve before the data file is opened. They are read as the data file is:
 * a symlink is followed, but what it leads to must be a regular file; a device,
 * FIFO, socket or directory is refused, never read nor waited on.
 */
import path from "node:path";
import { readGivenFile, ServerConfigError } from "../config-error.js";
import { checkPair, type TlsOption } from "./server-tls.js";

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
