/**
 * Fault injection for testing clients against a misbehaving service. Applies to
 * the pet operations (`/v1/pets`, `/v1/pets/{petId}`) once a request has passed
 * authentication and rate limiting; 401, 429, 404, 405 and the OpenAPI document
 * are never faulted. A seed makes the sequence of faults repeatable.
 */
import { randomInt } from "node:crypto";
import { ServerConfigError } from "./config-error.js";
import { seededRandom } from "./seeded-random.js";
import type { FailMode, FaultSettings } from "./settings/faults.js";

/** Retry-After of an injected 503, in seconds. */
export const FAULT_RETRY_AFTER_SECONDS = 1;

export interface FaultPlan {
  delayMs: number;
  failure: FailMode | undefined;
}

export class FaultInjector {
  private readonly random: () => number;
  private readonly minMs: number;
  private readonly spanMs: number;
  private readonly failRate: number;
  private readonly failMode: FailMode;

  constructor(options: FaultSettings) {
    this.random = seededRandom(options.seed ?? randomInt(0, 2 ** 32));
    this.minMs = options.latencyMs?.min ?? 0;
    this.spanMs = (options.latencyMs?.max ?? this.minMs) - this.minMs;
    this.failRate = options.failRate ?? 0;
    this.failMode = options.failMode ?? "503";
    if (!(this.failRate >= 0 && this.failRate <= 1)) {
      throw new ServerConfigError(`failRate must be from 0 to 1; got ${this.failRate}`);
    }
    if (!(this.minMs >= 0 && this.spanMs >= 0)) {
      throw new ServerConfigError("latencyMs must satisfy 0 <= min <= max");
    }
  }

  /** True when no option would ever change a request. */
  get inactive(): boolean {
    return this.failRate === 0 && this.minMs === 0 && this.spanMs === 0;
  }

  /** What happens to the next faultable request (one draw each, in a fixed order). */
  next(): FaultPlan {
    const failure = this.failRate > 0 && this.random() < this.failRate ? this.failMode : undefined;
    const delayMs =
      this.spanMs > 0 ? this.minMs + Math.floor(this.random() * (this.spanMs + 1)) : this.minMs;
    return { delayMs, failure };
  }
}
