/**
 * Contract of the HTTP layer (src/client/) as the commands use it. The commands
 * never see a key, a socket or a header parser: they call a PetstoreClient.
 */
import type { HttpResponse, RateLimitInfo } from "../http-response.js";
import type { ListQuery, NewPet, Pet } from "../schema/pet.js";

export interface HttpRequest {
  method: "GET" | "POST";
  /** Path and query below the base URL, e.g. `/pets?limit=5`. */
  path: string;
  /** JSON text; sent with Content-Type: application/json. */
  body?: string;
  /** At most this long for this attempt (a retry near the end of the retries' budget). */
  timeoutMs?: number;
}

/** What a command gets back: the data, the exact response text, and the rate limit. */
export interface ClientResult<T> {
  data: T;
  /** The response body exactly as sent by the service (int64-exact JSON). */
  raw: string;
  response: HttpResponse;
}

export interface Deprecation {
  /** From the Sunset header, or 5 December 2030 when it is absent. */
  sunset: Date;
  /** Target of the Link header (rel="successor-version"), when given. */
  replacement?: string;
}

export interface PetstoreClient {
  listPets(query: ListQuery): Promise<ClientResult<Pet[]>>;
  /**
   * `unreadable`: the service's 2xx answer was not a pet (why); `data` is then the
   * pet sent, with the id its Location header names.
   */
  createPet(pet: NewPet): Promise<ClientResult<Pet> & { unreadable?: string }>;
  getPet(id: bigint): Promise<ClientResult<Pet> & { deprecation?: Deprecation }>;
  /** The rate limit last seen, for `auth status`. */
  readonly lastRateLimit: RateLimitInfo | undefined;
}

/** Announced before each wait of the retry wrapper (stderr line and spinner). */
export interface RetryEvent {
  reason: "rate_limited" | "rate_limit_exhausted" | "server_error" | "network" | "timeout";
  waitMs: number;
  /** 1-based number of the attempt about to be made. */
  attempt: number;
  maxAttempts: number;
}
