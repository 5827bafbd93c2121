/**
 * Making the certificates of `serve --tls` with @peculiar/x509 on Node's WebCrypto:
 * a local CA, and a server certificate it signs. ECDSA P-256 with SHA-256: every
 * TLS client in use accepts it, and a key pair takes milliseconds to make. Both
 * carry key identifiers, which strict verifiers (Python's since 3.13) require.
 *
 * The build puts this module and the library in dist/tls.cjs, loaded only when a
 * certificate has to be made. @peculiar/x509 needs a Reflect polyfill (for
 * tsyringe): reflect-metadata.
 */
import "reflect-metadata";
import { createPrivateKey, KeyObject, webcrypto } from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };

/** A certificate and its private key (PKCS #8), both PEM. */
async function make(
  commonName: string,
  from: Date,
  notAfter: Date,
  extensions: x509.Extension[],
  issuer?: { cert: x509.X509Certificate; key: webcrypto.CryptoKey },
) {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const name: x509.JsonName = [{ CN: [commonName] }, { O: ["petstore-cli, for development only"] }];
  const cert = await x509.X509CertificateGenerator.create({
    // An hour before `from`: a client's clock may be a little behind.
    notBefore: new Date(from.getTime() - 3_600_000),
    notAfter,
    subject: name,
    issuer: issuer?.cert.subject ?? name,
    publicKey: keys.publicKey,
    signingKey: issuer?.key ?? keys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [...extensions, await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)],
  });
  const key = KeyObject.from(keys.privateKey).export({ type: "pkcs8", format: "pem" });
  return { cert: cert.toString("pem"), key: key.toString() };
}

/** A self-signed CA that may sign server certificates only (path length 0). */
export function makeCa(commonName: string, from: Date, notAfter: Date) {
  const { keyCertSign, cRLSign } = x509.KeyUsageFlags;
  return make(commonName, from, notAfter, [
    new x509.BasicConstraintsExtension(true, 0, true),
    new x509.KeyUsagesExtension(keyCertSign | cRLSign, true),
  ]);
}

/**
 * A certificate for `names` (host names and IP addresses, the first its CN), signed
 * by `ca`, valid until `notAfter` or until the CA expires, if sooner.
 */
export async function makeServerCertificate(
  ca: { cert: string; key: string },
  names: readonly string[],
  from: Date,
  notAfter: Date,
) {
  const caCert = new x509.X509Certificate(ca.cert);
  const pkcs8 = createPrivateKey(ca.key).export({ type: "pkcs8", format: "der" });
  const caKey = await webcrypto.subtle.importKey("pkcs8", pkcs8, ALGORITHM, false, ["sign"]);
  const altNames = names.map((value) => ({ type: isIP(value) ? "ip" : "dns", value }) as const);
  return make(
    names[0]!,
    from,
    notAfter < caCert.notAfter ? notAfter : caCert.notAfter,
    [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(altNames),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
    { cert: caCert, key: caKey },
  );
}
