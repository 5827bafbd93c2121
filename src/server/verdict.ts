/**
 * The verdict on the app under test (`GET /__admin/verdict`, `server.verdict()`):
 * the fake sees every /v1 request, when it arrived and left by the fake's clock,
 * and whether its answer was delivered, so it can tell where a client broke the
 * contract. Each answered or dropped request is observed once, when it finishes
 * (app.ts); what a rule needs of a key's past is kept per key, bounded, and
 * items beyond MAX_ITEMS are counted in `omitted`. Rules and caps: docs/serve.md.
 */
import { createHash } from "node:crypto";
import * as z from "zod/mini";
import { redactKey } from "../schema/redact-key.js";
import { count, described, named } from "./admin/bodies.js";
import { isoTime } from "./admin/clock.js";
import type { Account } from "./auth.js";

/** How early a retry may come before a Retry-After has passed: clocks and timers are not exact. */
export const GRACE_MS = 250;
/** Violations, and warnings, kept at most each. */
export const MAX_ITEMS = 1000;
/** Creates and failed requests remembered per key (the oldest forgotten first). */
const MAX_REMEMBERED = 256;
const REPEAT_WINDOW_MS = 60_000;

const RULES = [
  "early-retry",
  "request-while-banned",
  "no-backoff",
  "duplicate-after-unknown-outcome",
  "removed-endpoint",
  "deprecated-endpoint",
  "repeated-create",
  "unauthenticated",
] as const;
type Rule = (typeof RULES)[number];

const Item = named(
  "VerdictItem",
  z.object({
    rule: z.enum(RULES),
    key: described(
      z.nullable(z.string()),
      "Redacted, as `petstore auth status` shows keys; null: no valid key.",
    ),
    request: described(
      z.object({
        method: z.string(),
        path: z.string(),
        time: z.iso.datetime(),
        id: z.nullable(count()),
      }),
      "The request (the latest, for a counted warning); id: its journal id (null with the journal off).",
    ),
    message: z.string(),
    count: z.optional(
      described(count(), "deprecated-endpoint and unauthenticated: how many requests."),
    ),
  }),
);
type Item = z.infer<typeof Item>;

export const VerdictAnswer = named(
  "Verdict",
  z.object({
    pass: described(z.boolean(), "No violation (warnings do not fail it)."),
    violations: z.array(Item),
    warnings: z.array(Item),
    omitted: described(count(), `Items past the ${MAX_ITEMS} kept of each list.`),
  }),
);
export type Verdict = z.infer<typeof VerdictAnswer>;

/** A finished /v1 request, as app.ts reports it. */
export interface Observed {
  account?: Account;
  method: string;
  path: string;
  /** The fake's clock when it arrived and when its answer left (or its connection was dropped). */
  arrivedMs: number;
  leftMs: number;
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

interface Remembered {
  atMs: number;
  petId: string;
}

/** What the rules remember of one key. */
class KeyState {
  waitFromMs = -Infinity;
  waitUntilMs = -Infinity;
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

const seconds = (ms: number) => `${(ms / 1000).toFixed(3).replace(/\.?0+$/, "")} s`;

export class VerdictBook {
  private keys = new WeakMap<Account, KeyState>();
  private violations: Item[] = [];
  private warnings: Item[] = [];
  private omitted = 0;
  private unauthenticated: Item | undefined;

  clear(): void {
    this.keys = new WeakMap();
    this.violations = [];
    this.warnings = [];
    this.omitted = 0;
    this.unauthenticated = undefined;
  }

  verdict(): Verdict {
    return {
      pass: this.violations.length === 0,
      violations: this.violations,
      warnings: this.warnings,
      omitted: this.omitted,
    };
  }

  private add(
    list: Item[],
    seen: Observed,
    rule: Rule,
    message: string,
    counted = false,
  ): Item | undefined {
    if (list.length >= MAX_ITEMS) {
      this.omitted++;
      return undefined;
    }
    const key = seen.account === undefined ? null : redactKey(seen.account.key);
    const request = {
      method: seen.method,
      path: seen.path,
      time: isoTime(seen.arrivedMs),
      id: seen.id,
    };
    const item: Item = counted
      ? { rule, key, request, message, count: 1 }
      : { rule, key, request, message };
    list.push(item);
    return item;
  }

  /** A counted warning: one item, its request the latest. */
  private tally(item: Item | undefined, seen: Observed): Item | undefined {
    if (item === undefined) return undefined;
    item.count!++;
    item.request = { ...item.request, time: isoTime(seen.arrivedMs), id: seen.id };
    return item;
  }

  observe(seen: Observed): void {
    const { account, status } = seen;
    const what = `${seen.method} ${seen.path}`;
    if (status === 401) {
      this.unauthenticated =
        this.tally(this.unauthenticated, seen) ??
        this.add(
          this.warnings,
          seen,
          "unauthenticated",
          "requests answered 401: sent without a valid API key",
          true,
        );
    }
    if (account === undefined) return;
    let state = this.keys.get(account);
    if (state === undefined) this.keys.set(account, (state = new KeyState()));

    if (seen.banned) {
      this.add(
        this.violations,
        seen,
        "request-while-banned",
        `${what} arrived while the key was banned; the contract asks a client to wait for the ` +
          "Retry-After of its 429 before sending anything",
      );
    } else if (
      seen.arrivedMs >= state.waitFromMs &&
      seen.arrivedMs < state.waitUntilMs - GRACE_MS
    ) {
      this.add(
        this.violations,
        seen,
        "early-retry",
        `${what} arrived ${seconds(state.waitUntilMs - seen.arrivedMs)} before the Retry-After of ` +
          `the key's last 429 or 503 had passed; the contract asks a client to wait for it`,
      );
    }

    const digest =
      seen.body === undefined ? "" : createHash("sha256").update(seen.body).digest("base64");
    const signature = `${what} ${digest}`;
    const failure = state.failures.get(signature);
    const gapMs = failure && seen.arrivedMs - failure.leftMs;
    if (failure?.gapMs !== undefined && (gapMs! < GRACE_MS || gapMs! + GRACE_MS < failure.gapMs)) {
      this.add(
        this.violations,
        seen,
        "no-backoff",
        `${what} was sent again ${seconds(gapMs!)} after it failed without an answer or a ` +
          `Retry-After, having waited ${seconds(failure.gapMs)} the time before; the contract asks ` +
          "a client to back off exponentially, waiting longer each time",
      );
    }
    const unusable = status === null || (status >= 500 && seen.retryAfterSeconds === undefined);
    if (unusable) remember(state.failures, signature, { leftMs: seen.leftMs, gapMs });
    else state.failures.delete(signature);

    if (seen.petId !== undefined) {
      const earlier = state.unknown.get(digest);
      if (earlier !== undefined) {
        this.add(
          this.violations,
          seen,
          "duplicate-after-unknown-outcome",
          `${what} created pet ${seen.petId}, a duplicate of pet ${earlier.petId}: that create's ` +
            "answer never reached the client, and the same body was sent again; the contract " +
            "asks a client that cannot know a create's outcome to look for the pet (GET /pets) first",
        );
      }
      const repeated = state.created.get(digest);
      if (
        seen.delivered &&
        repeated !== undefined &&
        seen.leftMs - repeated.atMs <= REPEAT_WINDOW_MS
      ) {
        this.add(
          this.warnings,
          seen,
          "repeated-create",
          `${what} created pet ${seen.petId} with the same body as pet ${repeated.petId}, ` +
            `${seconds(seen.leftMs - repeated.atMs)} earlier, both answered 201: a double submit?`,
        );
      }
      remember(seen.delivered ? state.created : state.unknown, digest, {
        atMs: seen.leftMs,
        petId: seen.petId,
      });
    }

    if (seen.getPet && status === 410) {
      this.add(
        this.violations,
        seen,
        "removed-endpoint",
        `${what} was called after its sunset, when it is removed; the contract names GET /pets ` +
          "(its status filter) as the replacement",
      );
    } else if (seen.getPet) {
      state.deprecated =
        this.tally(state.deprecated, seen) ??
        this.add(
          this.warnings,
          seen,
          "deprecated-endpoint",
          "calls of GET /pets/{petId}, deprecated and removed at its sunset; use GET /pets",
          true,
        );
    }

    if (seen.delivered && seen.retryAfterSeconds !== undefined) {
      state.waitFromMs = seen.leftMs;
      state.waitUntilMs = seen.leftMs + seen.retryAfterSeconds * 1000;
    }
  }
}
