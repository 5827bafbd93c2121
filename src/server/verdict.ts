/**
 * The verdict on the app under test (`GET /__admin/verdict`, `server.verdict()`):
 * the fake sees every /v1 request, when it arrived and left by the fake's clock,
 * and whether its answer was delivered, so it can tell where a client broke the
 * contract. Each answered or dropped request is observed once, when it finishes
 * (app.ts); what a rule needs of a key's past is kept per key, bounded, and
 * items beyond MAX_ITEMS are counted in `omitted`. Rules and caps: docs/serve.md.
 */
import { createHash } from "node:crypto";
import { redactKey } from "../schema/redact-key.js";
import { isoTime } from "./admin/clock.js";
import type { Account } from "./auth.js";

/** How early a retry may come before a Retry-After has passed: clocks and timers are not exact. */
export const GRACE_MS = 250;
/** Violations, and warnings, kept at most each. */
export const MAX_ITEMS = 1000;
/** Creates and failed requests remembered per key (the oldest forgotten first). */
const MAX_REMEMBERED = 256;
const REPEAT_WINDOW_MS = 60_000;

/** Each rule and what it finds: a violation, a warning, or a warning counted in one item per key. */
export const RULES = {
  "early-retry": "violation",
  "request-while-banned": "violation",
  "no-backoff": "violation",
  "duplicate-after-unknown-outcome": "violation",
  "removed-endpoint": "violation",
  "deprecated-endpoint": "counted",
  "repeated-create": "warning",
  unauthenticated: "counted",
} as const;
type Rule = keyof typeof RULES;

/** A violation or a warning (its schema, with each field's words: scripts/openapi/admin.ts). */
export interface Item {
  rule: Rule;
  /** Redacted; null: no valid key. */
  key: string | null;
  request: ReturnType<typeof requestOf>;
  message: string;
  /** Counted warnings only. */
  count?: number;
}
export type Verdict = ReturnType<VerdictBook["verdict"]>;

/** A finished /v1 request, as app.ts reports it. */
export interface Observed {
  account?: Account;
  method: string;
  path: string;
  /** The fake's clock when it arrived and when its answer left (or its connection was dropped). */
  arrivedMs: number;
  leftMs: number;
  /** Its place in the order of arrival (stamp()). */
  seq: number;
  /** Its journal id. */
  id: number | null;
  /** null: the connection was dropped without an answer. */
  status: number | null;
  /** The answer reached a connection still open. */
  delivered: boolean;
  /** The key was banned when it arrived. */
  banned: boolean;
  retryAfterSeconds: number | undefined;
  /** A POST's body, as received. */
  body?: Buffer;
  /** The id of the pet a 201 created. */
  petId: string | undefined;
  /** GET or HEAD of /v1/pets/{petId}. */
  getPet: boolean;
}

/** A pet created, when its answer left. */
type Remembered = { atMs: number; petId: string };

/** What the rules remember of one key. */
class KeyState {
  /** The last Retry-After: from the first request that arrives after it left, until when. */
  wait = { fromSeq: Infinity, leftMs: 0, untilMs: -Infinity, signature: "" };
  /** no-backoff: by method, path and body, when the last failure left and the wait before it. */
  failures = new Map<string, { leftMs: number; gapMs: number | undefined }>();
  /** Pets created whose answer never reached the client, by body digest. */
  unknown = new Map<string, Remembered>();
  /** Pets created and answered, by body digest. */
  created = new Map<string, Remembered>();
  deprecated: Item | undefined;
}

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value!);
}

/** The last arrival's time as text: a counted warning takes every request's, many in one millisecond. */
let last = { ms: NaN, iso: "" };

const requestOf = (seen: Observed) => {
  if (seen.arrivedMs !== last.ms) last = { ms: seen.arrivedMs, iso: isoTime(seen.arrivedMs) };
  return { method: seen.method, path: seen.path, time: last.iso, id: seen.id };
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(3).replace(/\.?0+$/, "")} s`;

export class VerdictBook {
  private keys = new WeakMap<Account, KeyState>();
  private violations: Item[] = [];
  private warnings: Item[] = [];
  private omitted = 0;
  private unauthenticated: Item | undefined;

  private seq = 0;

  /** A request arrives: its place in the order of arrival. */
  stamp(): number {
    return ++this.seq;
  }

  clear(): void {
    this.keys = new WeakMap();
    this.violations = [];
    this.warnings = [];
    this.omitted = 0;
    this.unauthenticated = undefined;
  }

  /** A copy: a counted warning goes on counting after it is read. */
  verdict() {
    return structuredClone({
      pass: this.violations.length === 0,
      violations: this.violations,
      warnings: this.warnings,
      omitted: this.omitted,
    });
  }

  private add(seen: Observed, rule: Rule, message: string): Item | undefined {
    const list = RULES[rule] === "violation" ? this.violations : this.warnings;
    if (list.length >= MAX_ITEMS) {
      this.omitted++;
      return undefined;
    }
    const key = seen.account === undefined ? null : redactKey(seen.account.key);
    const item: Item = { rule, key, request: requestOf(seen), message };
    if (RULES[rule] === "counted") item.count = 1;
    list.push(item);
    return item;
  }

  /** A counted warning: one item, its request the latest. */
  private tally(item: Item | undefined, seen: Observed, rule: Rule, message: string) {
    if (item === undefined) return this.add(seen, rule, message);
    item.count!++;
    item.request = requestOf(seen);
    return item;
  }

  observe(seen: Observed): void {
    const { account, status } = seen;
    const what = `${seen.method} ${seen.path}`;
    if (status === 401) {
      const message = "requests answered 401: sent without a valid API key";
      this.unauthenticated = this.tally(this.unauthenticated, seen, "unauthenticated", message);
    }
    if (account === undefined) return;
    let state = this.keys.get(account);
    if (state === undefined) this.keys.set(account, (state = new KeyState()));

    const digest = seen.body && createHash("sha256").update(seen.body).digest("base64");
    // A POST refused before its body was read is like no other.
    const signature = `${what} ${digest ?? (seen.method === "POST" ? seen.seq : "")}`;
    const { wait } = state;
    const waitMs = wait.untilMs - seen.arrivedMs;
    // Another request just after the answer left may have been sent before the client read it.
    const retried = signature === wait.signature || seen.arrivedMs - wait.leftMs > GRACE_MS;
    if (seen.banned) {
      const message = `${what} arrived while the key was banned; the contract asks a client to wait for the Retry-After of its 429`;
      this.add(seen, "request-while-banned", message);
    } else if (seen.seq >= wait.fromSeq && waitMs > GRACE_MS && retried) {
      const message = `${what} arrived ${seconds(waitMs)} before the Retry-After of the key's last 429 or 503 had passed; the contract asks a client to wait for it`;
      this.add(seen, "early-retry", message);
    }

    const failure = state.failures.size === 0 ? undefined : state.failures.get(signature);
    const gapMs = failure && seen.arrivedMs - failure.leftMs;
    if (failure?.gapMs !== undefined && (gapMs! < GRACE_MS || gapMs! + GRACE_MS < failure.gapMs)) {
      const message = `${what} was sent again ${seconds(gapMs!)} after it failed without an answer or a Retry-After, having waited ${seconds(failure.gapMs)} the time before; the contract asks a client to back off exponentially, waiting longer each time`;
      this.add(seen, "no-backoff", message);
    }
    const unusable = status === null || (status >= 500 && seen.retryAfterSeconds === undefined);
    if (unusable) remember(state.failures, signature, { leftMs: seen.leftMs, gapMs });
    else if (failure !== undefined) state.failures.delete(signature);

    if (seen.petId !== undefined && digest !== undefined) {
      const earlier = state.unknown.get(digest);
      if (earlier !== undefined) {
        const message = `${what} created pet ${seen.petId}, a duplicate of pet ${earlier.petId}: that create's answer never reached the client, and the same body was sent again; the contract asks a client that cannot know a create's outcome to look for the pet (GET /pets) first`;
        this.add(seen, "duplicate-after-unknown-outcome", message);
      }
      const repeated = state.created.get(digest);
      const sinceMs = repeated === undefined ? Infinity : seen.leftMs - repeated.atMs;
      if (seen.delivered && sinceMs <= REPEAT_WINDOW_MS) {
        const message = `${what} created pet ${seen.petId} with the same body as pet ${repeated!.petId}, ${seconds(sinceMs)} earlier, both answered 201: a double submit?`;
        this.add(seen, "repeated-create", message);
      }
      const created = { atMs: seen.leftMs, petId: seen.petId };
      remember(seen.delivered ? state.created : state.unknown, digest, created);
    }

    if (seen.getPet && status === 410) {
      const message = `${what} was called after its sunset, when it is removed; the contract names GET /pets (its status filter) as the replacement`;
      this.add(seen, "removed-endpoint", message);
    } else if (seen.getPet) {
      const message =
        "calls of GET /pets/{petId}, deprecated and removed at its sunset; use GET /pets";
      state.deprecated = this.tally(state.deprecated, seen, "deprecated-endpoint", message);
    }

    if (seen.delivered && seen.retryAfterSeconds !== undefined) {
      const untilMs = seen.leftMs + seen.retryAfterSeconds * 1000;
      const next = { fromSeq: Infinity, leftMs: seen.leftMs, untilMs, signature };
      state.wait = next;
      // In flight: what the fake had already received when the answer left, which it reads
      // before its event loop comes round; a client's retry comes later.
      setImmediate(() => (next.fromSeq = this.seq + 1));
    }
  }
}
