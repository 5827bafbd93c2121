/**
 * A server option that cannot be used (bad key spec, latency, port in use...).
 * The message is for a person and names the option; the `serve` command turns it
 * into a usage error.
 */
export class ServerConfigError extends Error {
  override readonly name = "ServerConfigError";
}
