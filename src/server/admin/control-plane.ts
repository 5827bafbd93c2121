/**
 * What the control plane does, for `/__admin/*` and for the library's
 * `RunningServer` alike: health, reset, the request journal, the clock, faults
 * and keys at run time. Values come in already checked (bodies.ts, the library's
 * options); this module only acts on the server's parts. `/__admin/*` reads the
 * request journal and the fault settings from `parts` itself.
 */
import { redactKey } from "../../schema/redact-key.js";
import type { Keyring } from "../auth.js";
import type { FaultSettings } from "../faults.js";
import type { ApiKeySpec } from "../keys.js";
import { peekRequest, UNLIMITED, type RequestLimiter } from "../rate-limit.js";
import type { PetStore } from "../store/types.js";
import { isoTime, type FakeClock } from "./clock.js";
import type { ClockState, KeyEntry } from "./bodies.js";
import type { JournalFilter, RecordedRequest, RequestJournal } from "./request-journal.js";

export interface ControlPlaneParts {
  store: PetStore;
  keys: readonly ApiKeySpec[];
  keyring: Keyring;
  limiter: RequestLimiter;
  clock: FakeClock;
  journal: RequestJournal;
  faults: { get(): FaultSettings; set(options: FaultSettings): void };
}

export type { ClockState, KeyEntry } from "./bodies.js";

export class ControlPlane {
  private readonly startedAt = performance.now();
  /** The keys in the order given, then added; the keyring itself keeps only digests. */
  private readonly keySpecs = new Map<string, ApiKeySpec>();

  constructor(readonly parts: ControlPlaneParts) {
    for (const spec of parts.keys) this.keySpecs.set(spec.key, spec);
  }

  health() {
    return {
      status: "ok" as const,
      pets: this.parts.store.size,
      uptimeSeconds: Math.floor((performance.now() - this.startedAt) / 1000),
    };
  }

  /**
   * The store back to its opening pets (durably), then every rate-limit window,
   * ban and the journal cleared. Keys, faults and the clock stay as they are.
   * Rejects (a StoreError) when the store cannot be reset; nothing is cleared then.
   */
  async reset(): Promise<void> {
    await this.parts.store.reset();
    this.parts.keyring.resetBuckets();
    this.parts.limiter.clearAddresses();
    this.parts.journal.clear();
  }

  requests(filter: JournalFilter = {}): RecordedRequest[] {
    return this.parts.journal.list(filter);
  }

  clearRequests(): void {
    this.parts.journal.clear();
  }

  clock(): ClockState {
    const nowMs = this.parts.clock.now();
    return {
      now: isoTime(nowMs),
      nowMs,
      offsetSeconds: this.parts.clock.offsetSeconds,
    };
  }

  /**
   * `seconds`: checked, 0 to MAX_ADVANCE_SECONDS. The clock as moved, or why it
   * was not: the step would take it past LATEST_CLOCK_MS.
   */
  advanceClock(seconds: number): { ok: true; clock: ClockState } | { ok: false; problem: string } {
    const problem = this.parts.clock.advance(seconds);
    return problem === undefined ? { ok: true, clock: this.clock() } : { ok: false, problem };
  }

  /** Replaces every fault setting; the FaultInjector checks them once more. */
  setFaults(options: FaultSettings): void {
    this.parts.faults.set(options);
  }

  keys(): ApiKeySpec[] {
    return [...this.keySpecs.values()];
  }

  keyEntries(): KeyEntry[] {
    return this.keys().map((spec) => this.entryOf(spec));
  }

  /** Adds a key, or gives a known one this plan (its counters kept); `created` when new. */
  addKey(spec: ApiKeySpec): { entry: KeyEntry; created: boolean } {
    const created = this.parts.keyring.add(spec);
    this.keySpecs.set(spec.key, spec);
    return { entry: this.entryOf(spec), created };
  }

  /** Whether the key was there. */
  removeKey(key: string): boolean {
    this.keySpecs.delete(key);
    return this.parts.keyring.remove(key);
  }

  private entryOf(spec: ApiKeySpec): KeyEntry {
    const nowMs = this.parts.clock.now();
    const account = this.parts.keyring.account(spec.key);
    const limits = spec.limits;
    const window =
      limits === null || account === undefined
        ? {
            limit: UNLIMITED,
            remaining: UNLIMITED,
            resetSeconds: (Math.floor(nowMs / 60_000) + 1) * 60,
          }
        : peekRequest(account.bucket, limits, nowMs);
    return {
      key: redactKey(spec.key),
      plan: spec.plan,
      limit: window.limit,
      remaining: window.remaining,
      reset: window.resetSeconds,
      perMinute: limits?.perMinute ?? null,
      perDay: limits?.perDay ?? null,
    };
  }
}
