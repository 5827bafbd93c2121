/**
 * Fault injection for testing clients against a misbehaving service. Applies to
 * the pet operations (`/v1/pets`, `/v1/pets/{petId}`) once a request has passed
 * authentication and rate limiting; 401, 429, 404, 405 and the OpenAPI document
 * are never faulted. A seed makes the sequence of faults repeatable.
 */
import { wholeNumberFlag } from "../schema/whole-number.js";
import { randomInt } from "node:crypto";
import { ServerConfigError } from "./config-error.js";
import { seededRandom } from "./seeded-random.js";

export const FAIL_MODES = ["503", "reset", "reset-after"] as const;
/**
 * `503`: answer 503 with Retry-After. `reset`: destroy the connection before the
 * request is processed. `reset-after`: process it (a POST really creates the pet),
 * then destroy the connection without answering: the client cannot know the outcome.
 */
export type FailMode = (typeof FAIL_MODES)[number];

export interface FaultOptions {
  /** Delay before processing, uniform in [minMs, maxMs]. */
  latency?: { minMs: number; maxMs: number };
  /** Probability, 0..1, that a request fails. */
  failRate?: number;
  failMode?: FailMode;
  seed?: number;
}

/** Retry-After of an injected 503, in seconds. */
export const FAULT_RETRY_AFTER_SECONDS = 1;
export const MAX_LATENCY_MS = 600_000;

/** `--latency 250` or `--latency 100-400` (milliseconds). */
export function parseLatency(text: string): { minMs: number; maxMs: number } {
  const match = /^\s*([0-9]{1,6})(?:\s*-\s*([0-9]{1,6}))?\s*$/.exec(text);
  const minMs = match ? Number(match[1]) : NaN;
  const maxMs = match?.[2] === undefined ? minMs : Number(match[2]);
  if (!match || maxMs < minMs || maxMs > MAX_LATENCY_MS) {
    throw new ServerConfigError(
      `--latency must be <ms> or <min>-<max> with 0 <= min <= max <= ${MAX_LATENCY_MS}; got ${JSON.stringify(text)}`,
    );
  }
  return { minMs, maxMs };
}

export function parseFailRate(text: string): number {
  const trimmed = text.trim();
  const rate = /^(?:[0-9]+\.?[0-9]*|\.[0-9]+)$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!(rate >= 0 && rate <= 1)) {
    throw new ServerConfigError(
      `--fail-rate must be a number from 0 to 1; got ${JSON.stringify(text)}`,
    );
  }
  return rate;
}

export function parseFailMode(text: string): FailMode {
  const mode = FAIL_MODES.find((m) => m === text.trim().toLowerCase());
  if (mode === undefined) {
    throw new ServerConfigError(
      `--fail-mode must be one of ${FAIL_MODES.join(", ")}; got ${JSON.stringify(text)}`,
    );
  }
  return mode;
}

export function parseFaultSeed(text: string): number {
  const parsed = wholeNumberFlag(text, "--fault-seed", 0, 0xffffffff);
  if (!parsed.ok) throw new ServerConfigError(parsed.problem);
  return parsed.value;
}

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

  constructor(options: FaultOptions) {
    this.random = seededRandom(options.seed ?? randomInt(0, 2 ** 32));
    this.minMs = options.latency?.minMs ?? 0;
    this.spanMs = (options.latency?.maxMs ?? this.minMs) - this.minMs;
    this.failRate = options.failRate ?? 0;
    this.failMode = options.failMode ?? "503";
    if (!(this.failRate >= 0 && this.failRate <= 1)) {
      throw new ServerConfigError(`failRate must be from 0 to 1; got ${this.failRate}`);
    }
    if (!(this.minMs >= 0 && this.spanMs >= 0)) {
      throw new ServerConfigError("latency must satisfy 0 <= minMs <= maxMs");
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
