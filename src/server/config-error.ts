/**
 * A server option that cannot be used (bad key spec, latency, port in use...).
 * The message is for a person and names the option; the `serve` command turns it
 * into a usage error.
 */
import { ERROR_KIND, KindedError } from "../schema/kinded-error.js";

export class ServerConfigError extends KindedError {
  static override [ERROR_KIND] = "ServerConfigError";
}
