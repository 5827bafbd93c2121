/**
 * The `tls` option of `startServer`: `{ cert, key }` (PEM) serves that certificate;
 * `true` serves one made at start-up for localhost, 127.0.0.1, ::1 and the address
 * listened on, signed by the local CA (local-ca.ts). That server certificate is
 * valid for 397 days (or until the CA expires, if sooner) and its key stays in
 * memory.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import type { Server as HttpsServer } from "node:https";
import { createSecureContext, type TLSSocket } from "node:tls";
import { ServerConfigError } from "../config-error.js";
import { BACKDATE_MS, caPaths, CA_SUBJECT, localCa, saveCa } from "./local-ca.js";

export type TlsOption = true | { cert: string | Buffer; key: string | Buffer };

export interface TlsSetup {
  cert: string;
  key: string;
  /** The CA certificate (PEM) that clients trust, when serve made the certificate. */
  ca?: string;
  /** The file it was written to (next to the data file). */
  caFile?: string;
  /** The CA files written that did not exist before: removed if the start fails. */
  created?: string[];
}

const SERVER_CERTIFICATE_DAYS = 397;
const DAY_MS = 86_400_000;
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];
const ANY_ADDRESS = new Set(["0.0.0.0", "::", "0:0:0:0:0:0:0:0"]);

/** `read()`, or a ServerConfigError: `label` is not `what`, and Node's (OpenSSL's) reason. */
function readPem<T>(label: string, what: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ServerConfigError(`${label}: not ${what} (${reason}).`);
  }
}

/**
 * Checks that `cert` and `key` (labelled for messages: `--tls-cert ./cert.pem`,
 * `tls.cert`) make a pair TLS can serve: Node reads both, the key is the
 * certificate's own and unencrypted (serve cannot ask for a passphrase), and
 * Node's TLS layer takes them.
 */
export function checkPair(
  cert: string,
  key: string,
  labels: { cert: string; key: string },
): X509Certificate {
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

function text(value: unknown, name: string): string {
  if (typeof value === "string") return value;
  if (Buffer.isBuffer(value)) return value.toString("latin1");
  throw new ServerConfigError(`tls.${name} must be PEM text (a string or a Buffer)`);
}

/**
 * Checks the `tls` option before anything is opened: `true`, or a certificate and
 * key that make a usable pair. Undefined (and false) mean plain http.
 */
export function checkTlsOption(
  option: unknown,
): { given: { cert: string; key: string }; certificate: X509Certificate } | true | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return true;
  if (typeof option !== "object" || option === null || Array.isArray(option)) {
    throw new ServerConfigError("tls must be true or { cert, key } (PEM text)");
  }
  const { cert, key, ...unknown } = option as { cert?: unknown; key?: unknown };
  if (Object.keys(unknown).length > 0) {
    const names = Object.keys(unknown).map((name) => JSON.stringify(name));
    throw new ServerConfigError(`tls has no option ${names.join(", ")}; it takes cert and key`);
  }
  const given = { cert: text(cert, "cert"), key: text(key, "key") };
  return {
    given,
    certificate: checkPair(given.cert, given.key, { cert: "tls.cert", key: "tls.key" }),
  };
}

/** The names the made certificate is for: loopback, and `host` unless it is a wildcard. */
export function serverNames(host: string): string[] {
  const names = [...LOOPBACK_NAMES];
  const name = host.toLowerCase();
  if (name !== "" && !ANY_ADDRESS.has(name) && !names.includes(name)) names.push(name);
  return names;
}

/**
 * What the https server is started with. `note` gets a line for a given
 * certificate that is not valid now (clients will refuse it), and for a CA made anew.
 */
export async function setUpTls(
  option: NonNullable<ReturnType<typeof checkTlsOption>>,
  context: { file?: string; host: string; now: Date; note: (line: string) => void },
): Promise<TlsSetup> {
  const { now, note } = context;
  if (option !== true) {
    const { validFrom, validTo } = option.certificate;
    if (now > new Date(validTo)) {
      note(
        `the TLS certificate expired on ${new Date(validTo).toISOString()}: clients will refuse it`,
      );
    } else if (now < new Date(validFrom)) {
      note(
        `the TLS certificate is not valid before ${new Date(validFrom).toISOString()}: clients will refuse it until then`,
      );
    }
    return option.given;
  }
  const paths = context.file === undefined ? undefined : caPaths(context.file);
  const ca = await localCa(paths, now);
  const names = serverNames(context.host);
  const { makeServerCertificate } = await import("./make-certificates.js");
  const pair = await makeServerCertificate(
    ca.pair,
    { commonName: names[0]!, organization: CA_SUBJECT.organization },
    names,
    new Date(now.getTime() - BACKDATE_MS),
    new Date(Math.min(now.getTime() + SERVER_CERTIFICATE_DAYS * DAY_MS, ca.notAfter.getTime())),
  );
  if (ca.keyNote !== undefined) note(ca.keyNote);
  let created: string[] | undefined;
  if (ca.madeBecause !== undefined && paths !== undefined) {
    created = await saveCa(paths, ca.pair);
    note(
      `made a new local CA, ${paths.cert}, valid until ${ca.notAfter.toISOString().slice(0, 10)} ` +
        `(${ca.madeBecause}); clients trust it with NODE_EXTRA_CA_CERTS=${paths.cert}`,
    );
  }
  return { ...pair, ca: ca.pair.cert, caFile: paths?.cert, created };
}

const HANDSHAKE_NOTE_EVERY_MS = 10_000;

/**
 * Logs a TLS handshake that failed, at most once per 10 seconds. A Node client
 * that does not trust the certificate just closes the connection, so that is
 * said with what would fix it; OpenSSL's reason is given for any other failure
 * (curl, for one, sends "tlsv1 alert unknown ca").
 */
export function noteHandshakeFailures(
  server: HttpsServer,
  caFile: string | undefined,
  note: (line: string) => void,
): void {
  let notedAt = -Infinity;
  server.on(
    "tlsClientError",
    (error: Error & { code?: string; reason?: string }, socket: TLSSocket) => {
      socket.destroy();
      const now = performance.now();
      if (now - notedAt < HANDSHAKE_NOTE_EVERY_MS) return;
      notedAt = now;
      if (error.code === "ECONNRESET") {
        const trust =
          caFile === undefined ? "the certificate" : `the CA (NODE_EXTRA_CA_CERTS=${caFile})`;
        note(`a client closed its connection during the TLS handshake: does it trust ${trust}?`);
      } else {
        note(`a TLS handshake failed: ${error.reason ?? error.message}`);
      }
    },
  );
}
