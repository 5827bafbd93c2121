/**
 * The TLS flags of `petstore serve`: `--tls-cert <pem> --tls-key <pem>` (both or
 * neither) serve that certificate; `--tls` alone serves one signed by the local CA
 * kept next to the data file. The files are read and checked here, so a problem
 * stops serve before the data file is opened. They are read as the data file is:
 * a symlink is followed, but what it leads to must be a regular file; a device,
 * FIFO, socket or directory is refused, never read nor waited on.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { whyNotRegular } from "../../files/file-kind.js";
import { ServerConfigError } from "../config-error.js";
import { checkPair, type TlsOption } from "./server-tls.js";

export interface TlsFlags {
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
}

export interface TlsPlan {
  tls?: TlsOption;
  /**
   * The given certificate, when it is self-signed: clients can trust it directly
   * (NODE_EXTRA_CA_CERTS). Absolute.
   */
  trustFile?: string;
}

/** Far more than any certificate chain or key; a larger file is not one. */
const MAX_PEM_BYTES = 1024 * 1024;

function readGivenPem(file: string, flag: string): string {
  const label = `${flag} ${file}`;
  try {
    const why = whyNotRegular(file);
    if (why !== undefined) {
      throw new ServerConfigError(`${label}: ${why}, not a regular file. Give a PEM file.`);
    }
    const { size } = statSync(file);
    if (size > MAX_PEM_BYTES) {
      throw new ServerConfigError(
        `${label}: ${size} bytes is too large for a PEM file (at most ${MAX_PEM_BYTES}).`,
      );
    }
    return readFileSync(file, "latin1");
  } catch (error) {
    if (error instanceof ServerConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EACCES" || code === "EPERM"
          ? "permission denied"
          : (code ?? String(error));
    throw new ServerConfigError(`${label}: cannot read it (${why}).`);
  }
}

export function planTls(flags: TlsFlags): TlsPlan {
  const { tlsCert, tlsKey } = flags;
  if (tlsCert === undefined && tlsKey === undefined) return flags.tls === true ? { tls: true } : {};
  if (tlsCert === undefined) {
    throw new ServerConfigError("--tls-key needs --tls-cert (the certificate of that key)");
  }
  if (tlsKey === undefined) {
    throw new ServerConfigError("--tls-cert needs --tls-key (the certificate's private key)");
  }
  if (tlsCert.trim() === "") throw new ServerConfigError("--tls-cert must not be empty");
  if (tlsKey.trim() === "") throw new ServerConfigError("--tls-key must not be empty");
  const cert = readGivenPem(tlsCert, "--tls-cert");
  const key = readGivenPem(tlsKey, "--tls-key");
  const certificate = checkPair(cert, key, {
    cert: `--tls-cert ${tlsCert}`,
    key: `--tls-key ${tlsKey}`,
  });
  const selfSigned =
    certificate.checkIssued(certificate) && certificate.verify(certificate.publicKey);
  return { tls: { cert, key }, trustFile: selfSigned ? path.resolve(tlsCert) : undefined };
}
