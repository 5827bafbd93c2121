/**
 * The request journal: the last `capacity` requests the fake answered (or cut off
 * with a reset fault), oldest first, for `GET /__admin/requests` and
 * `requests()`. It holds what a test asserts on: method, path, query, status,
 * duration, the fake's time, the plan of the key (never the key: the
 * Authorization header is not kept) and, for a POST, the first 64 KiB of the body
 * as received. Recording is a few field writes into a ring, so it costs the
 * request path next to nothing; the JSON form is made only when read.
 */
import type { PlanName } from "../keys.js";

/** Bytes of a POST body kept per request; the rest is counted, not kept. */
export const MAX_BODY_KEPT = 64 * 1024;
export { DEFAULT_JOURNAL_SIZE } from "../serve-defaults.js";
export const MAX_JOURNAL_SIZE = 100_000;

export interface JournalEntry {
  id: number;
  /** The fake's clock when the request arrived. */
  timeMs: number;
  method: string;
  path: string;
  /** The query as sent, without `?`; "" when none. */
  query: string;
  /** null: the connection was closed without an answer (a reset fault). */
  status: number | null;
  durationMs: number;
  /** The plan of a valid key; null without one. */
  plan: PlanName | null;
  /** POST only: the first MAX_BODY_KEPT bytes received. */
  body?: Buffer;
  /** POST only: how many bytes were received in all. */
  bodyBytes?: number;
}

/** A journal entry as JSON (`GET /__admin/requests`, `requests()`). */
export interface RecordedRequest {
  id: number;
  /** ISO 8601, the fake's clock. */
  time: string;
  method: string;
  path: string;
  query: string;
  status: number | null;
  durationMs: number;
  plan: PlanName | null;
  /** POST only: the body as received (UTF-8; invalid bytes become U+FFFD). */
  body?: string;
  /** POST only: the body's size in bytes. */
  bodyBytes?: number;
  /** POST only: true when the body was longer than the 64 KiB kept. */
  bodyTruncated?: boolean;
}

export interface JournalFilter {
  /** Upper case. */
  method?: string;
  /** Exact, or a prefix when it ends in `*`. */
  path?: string;
  /** An exact status, or a class: 4 for 4xx. */
  status?: { exact: number } | { class: number };
  /** Fake-clock milliseconds: requests at or after. */
  sinceMs?: number;
}

export class RequestJournal {
  private readonly ring: Array<JournalEntry | undefined>;
  /** Where the next entry goes. */
  private next = 0;
  private count = 0;
  private lastId = 0;

  constructor(readonly capacity: number) {
    this.ring = new Array<JournalEntry | undefined>(capacity);
  }

  record(entry: Omit<JournalEntry, "id">): void {
    if (this.capacity === 0) return;
    (entry as JournalEntry).id = ++this.lastId;
    this.ring[this.next] = entry as JournalEntry;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** Oldest first. */
  list(filter: JournalFilter = {}): RecordedRequest[] {
    const found: RecordedRequest[] = [];
    const start = (this.next - this.count + this.capacity) % Math.max(1, this.capacity);
    for (let i = 0; i < this.count; i++) {
      const entry = this.ring[(start + i) % this.capacity]!;
      if (matches(entry, filter)) found.push(recorded(entry));
    }
    return found;
  }

  /** Empties the journal; ids continue where they were. */
  clear(): void {
    this.ring.fill(undefined);
    this.count = 0;
    this.next = 0;
  }
}

function matches(entry: JournalEntry, filter: JournalFilter): boolean {
  if (filter.method !== undefined && entry.method !== filter.method) return false;
  if (filter.path !== undefined) {
    const path = filter.path;
    const ok = path.endsWith("*") ? entry.path.startsWith(path.slice(0, -1)) : entry.path === path;
    if (!ok) return false;
  }
  const status = filter.status;
  if (status !== undefined) {
    if (entry.status === null) return false;
    if (
      "exact" in status
        ? entry.status !== status.exact
        : Math.floor(entry.status / 100) !== status.class
    ) {
      return false;
    }
  }
  return filter.sinceMs === undefined || entry.timeMs >= filter.sinceMs;
}

function recorded(entry: JournalEntry): RecordedRequest {
  const json: RecordedRequest = {
    id: entry.id,
    time: new Date(entry.timeMs).toISOString(),
    method: entry.method,
    path: entry.path,
    query: entry.query,
    status: entry.status,
    durationMs: Math.round(entry.durationMs * 1000) / 1000,
    plan: entry.plan,
  };
  if (entry.body !== undefined) {
    json.body = entry.body.toString("utf8");
    json.bodyBytes = entry.bodyBytes!;
    json.bodyTruncated = entry.bodyBytes! > entry.body.length;
  }
  return json;
}

/** The part of a received body the journal keeps: a copy, so the request's buffer can go. */
export function keptBody(bytes: Buffer): Buffer {
  return Buffer.from(bytes.subarray(0, MAX_BODY_KEPT));
}
