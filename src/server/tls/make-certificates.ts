/**
 * Making the certificates of `serve --tls` with @peculiar/x509 on Node's WebCrypto:
 * a local certificate authority, and a server certificate it signs for the names
 * the fake answers on. ECDSA P-256 with SHA-256 throughout: every TLS client in use
 * accepts it, and a key pair takes milliseconds to make.
 *
 * Only local-ca.ts imports this module, and only when a certificate has to be made;
 * the build puts it (and the library) in a file of its own, dist/tls.cjs, so neither
 * the CLI nor a `serve` without --tls loads it. @peculiar/x509 needs a Reflect
 * polyfill (for tsyringe): reflect-metadata, loaded here with it.
 */
import "reflect-metadata";
import { createPrivateKey, KeyObject, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";

/** A certificate and its private key (PKCS #8), both PEM. */
export interface PemPair {
  cert: string;
  key: string;
}

/** A subject: common name and organisation. */
export interface Subject {
  commonName: string;
  organization: string;
}

const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: "ECDSA", namedCurve: "P-256" };
const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: "ECDSA", hash: "SHA-256" };

x509.cryptoProvider.set(webcrypto);

function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return webcrypto.subtle.generateKey(KEY_ALGORITHM, true, ["sign", "verify"]);
}

function keyPem(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: "pkcs8", format: "pem" }).toString();
}

function name(subject: Subject): x509.JsonName {
  return [{ CN: [subject.commonName] }, { O: [subject.organization] }];
}

/**
 * A self-signed CA certificate, valid from `notBefore` to `notAfter`, that may
 * sign server certificates only (path length 0).
 */
export async function makeCa(subject: Subject, notBefore: Date, notAfter: Date): Promise<PemPair> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: name(subject),
    notBefore,
    notAfter,
    signingAlgorithm: SIGNING_ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString("pem"), key: keyPem(keys.privateKey) };
}

/**
 * A server certificate for `names` (host names and IP addresses; the first is
 * also the common name), signed by `ca` (an ECDSA P-256 key), valid from
 * `notBefore` to `notAfter`.
 */
export async function makeServerCertificate(
  ca: PemPair,
  subject: Subject,
  names: readonly string[],
  notBefore: Date,
  notAfter: Date,
): Promise<PemPair> {
  const keys = await keyPair();
  const caCert = new x509.X509Certificate(ca.cert);
  const signingKey = await webcrypto.subtle.importKey(
    "pkcs8",
    createPrivateKey(ca.key).export({ type: "pkcs8", format: "der" }),
    KEY_ALGORITHM,
    false,
    ["sign"],
  );
  const cert = await x509.X509CertificateGenerator.create({
    subject: name(subject),
    issuer: caCert.subject,
    notBefore,
    notAfter,
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: keys.publicKey,
    signingKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        names.map((value) => ({ type: isIP(value) === 0 ? "dns" : "ip", value })),
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { cert: cert.toString("pem"), key: keyPem(keys.privateKey) };
}
