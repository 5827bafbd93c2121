/**
 * The TLS flags of `petstore serve`: `--tls-cert <pem> --tls-key <pem>` (both or
 * neither) serve that certificate; `--tls` alone serves one signed by the local CA
 * kept next to the data file. The files are read and checked here, so a problem
 * stops serve before the data file is opened.
 */
import path from "node:path";
import { ServerConfigError } from "../config-error.js";
import { checkPair, isSelfSigned } from "./pem-check.js";
import { readGivenPem } from "./pem-files.js";
import type { TlsOption } from "./server-tls.js";

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
  const { certificate } = checkPair(cert, key, {
    cert: `--tls-cert ${tlsCert}`,
    key: `--tls-key ${tlsKey}`,
  });
  return {
    tls: { cert, key },
    trustFile: isSelfSigned(certificate) ? path.resolve(tlsCert) : undefined,
  };
}
