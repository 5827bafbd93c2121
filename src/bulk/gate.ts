/**
 * The pacer in real time: requests wait in line for `acquire`, and the line moves
 * whenever an answer comes back or the moment the pacer named arrives.
 */
import type { Completion, Decision, RatePacer } from "./pacer.js";

export interface GateTimers {
  now: () => number;
  setTimeout: (callback: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export const realTimers: GateTimers = {
  now: Date.now,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export type Wait = Extract<Decision, { go: false }>;

/** The longest delay a Node timer takes (a longer one fires at once, with a warning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class PacerGate {
  private readonly waiters: Array<(issued: number | undefined) => void> = [];
  private timer: unknown;
  private closed = false;

  constructor(
    private readonly pacer: RatePacer,
    private readonly timers: GateTimers,
    /** Told each time the line stops moving, and why. */
    private readonly onWait?: (wait: Wait) => void,
  ) {}

  /** The request's number when it may go at once (nobody waits and the pacer says go); else undefined. */
  tryAcquire(): number | undefined {
    if (this.closed || this.waiters.length > 0) return undefined;
    if (!this.pacer.decide(this.timers.now()).go) return undefined;
    return this.pacer.issue();
  }

  /** Resolves with the request's number once it may go; undefined once the gate is closed. */
  acquire(): Promise<number | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.pump();
    });
  }

  /** `pauseUntilLocalMs` holds every request (Retry-After, backoff) before the line moves on. */
  complete(issued: number, completion: Completion, pauseUntilLocalMs?: number): void {
    if (pauseUntilLocalMs !== undefined) this.pacer.pauseUntil(pauseUntilLocalMs);
    this.pacer.complete(issued, completion);
    this.pump();
  }

  /** No request is let through any more; those waiting get undefined. */
  close(): void {
    this.closed = true;
    this.clearTimer();
    for (const resolve of this.waiters.splice(0)) resolve(undefined);
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private pump(): void {
    this.clearTimer();
    while (this.waiters.length > 0 && !this.closed) {
      const decision = this.pacer.decide(this.timers.now());
      if (decision.go) {
        this.waiters.shift()!(this.pacer.issue());
        continue;
      }
      if (decision.untilLocalMs !== undefined) {
        // A wait past a timer's range is waited in pieces: the line is looked at again after each.
        const delay = Math.min(
          MAX_TIMER_MS,
          Math.max(1, Math.ceil(decision.untilLocalMs - this.timers.now())),
        );
        this.timer = this.timers.setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, delay);
      }
      this.onWait?.(decision);
      return;
    }
  }
}
