/**
 * The request journal: the last `capacity` requests the fake answered (or cut off
 * with a reset fault), oldest first, for `GET /__admin/requests` and
 * `requests()`. It holds what a test asserts on: method, path, query, status,
 * duration, the fake's time, the plan of the key (never the key: the
 * Authorization header is not kept) and, for a POST, the start of the body as
 * received (`bodyLimit` bytes). Recording is one small object per request, kept
 * aside until the request is answered, then put in a ring, so it costs the request
 * path next to nothing; the JSON form is made only when read, a page at a time
 * (`page`): one read never builds more than about PAGE_BYTES of JSON, whatever the
 * journal holds.
 */
import type { IncomingMessage } from "node:http";
import type { PlanName } from "../keys.js";
import { isoTime } from "./clock.js";

/** Bytes of a POST body kept per request; the rest is counted, not kept. */
export const MAX_BODY_KEPT = 64 * 1024;
/** Bytes of bodies the whole journal keeps at most: a larger journal keeps less of each. */
export const BODY_BUDGET = 64 * 1024 * 1024;
/** About how many bytes of JSON one answer of `GET /__admin/requests` holds at most. */
export const PAGE_BYTES = 1024 * 1024;
export { DEFAULT_JOURNAL_SIZE, MAX_JOURNAL_SIZE } from "../serve-defaults.js";

/** One request, as recorded. Every field is set in the constructor: one object shape. */
export class JournalEntry {
  id = 0;
  /** null: the connection was closed without an answer (a reset fault). */
  status: number | null = 0;
  /** Whole microseconds (a small integer, not a boxed double). */
  durationUs = 0;
  /** POST only: the first bytes received, up to the journal's `bodyLimit`. */
  body: Buffer | undefined = undefined;
  /** POST only: how many bytes were received in all. */
  bodyBytes = 0;

  constructor(
    /** The fake's clock when the request arrived. */
    readonly timeMs: number,
    readonly method: string,
    /** The request target; the path is its first `pathLength` characters, the query follows `?`. */
    readonly url: string,
    readonly pathLength: number,
    /** The plan of a valid key; null without one. */
    readonly plan: PlanName | null,
  ) {}
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
  /** POST only: true when the body was longer than the part kept (see `bodyLimit`). */
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
  /** Requests with a larger id only: where the previous page ended. */
  afterId?: number;
  /** At most this many requests. */
  limit?: number;
}

/** One answer of `GET /__admin/requests`: the requests as JSON texts, and where the rest start. */
export interface JournalPage {
  items: string[];
  /** The id to ask `after` for the next page; null when this page holds the last match. */
  nextAfter: number | null;
}

export class RequestJournal {
  private readonly ring: Array<JournalEntry | undefined>;
  /** Where the next entry goes. */
  private next = 0;
  private count = 0;
  private lastRecordedId = 0;
  private currentRequest: IncomingMessage | undefined;
  private current: JournalEntry | undefined;
  private readonly later = new WeakMap<IncomingMessage, JournalEntry>();

  /** Bytes kept of a POST body: MAX_BODY_KEPT, less when the journal is large (BODY_BUDGET in all). */
  readonly bodyLimit: number;

  constructor(readonly capacity: number) {
    this.ring = new Array<JournalEntry | undefined>(capacity);
    this.bodyLimit = Math.min(MAX_BODY_KEPT, Math.floor(BODY_BUDGET / Math.max(1, capacity)));
  }

  /** The id of the newest request recorded; 0 before the first. */
  get lastId(): number {
    return this.lastRecordedId;
  }

  /**
   * A request arrived. Most are answered before the next one arrives (a GET is
   * answered at once): their entry waits in `current`. One still unanswered when
   * the next arrives (a POST reading its body, a delayed fault) waits in `later`.
   */
  begin(req: IncomingMessage, entry: JournalEntry): void {
    if (this.currentRequest !== undefined) this.later.set(this.currentRequest, this.current!);
    this.currentRequest = req;
    this.current = entry;
  }

  private entryOf(req: IncomingMessage): JournalEntry | undefined {
    return req === this.currentRequest ? this.current : this.later.get(req);
  }

  /** The body of a POST as received, for its entry. */
  keepBody(req: IncomingMessage, bytes: Buffer): void {
    const entry = this.entryOf(req);
    if (entry === undefined) return;
    let end = Math.min(bytes.length, this.bodyLimit);
    // Cut before a character, never inside one.
    if (end < bytes.length) while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
    entry.body = Buffer.from(bytes.subarray(0, end));
    entry.bodyBytes = bytes.length;
  }

  /** The request was answered (`status`) or cut off (null): its entry goes into the ring. */
  finish(req: IncomingMessage, status: number | null, durationMs: number): void {
    const entry = this.entryOf(req);
    if (entry === undefined) return;
    if (req === this.currentRequest) {
      this.currentRequest = undefined;
      this.current = undefined;
    } else {
      this.later.delete(req);
    }
    entry.status = status;
    entry.durationUs = Math.round(durationMs * 1000);
    this.record(entry);
  }

  record(entry: JournalEntry): void {
    if (this.capacity === 0) return;
    entry.id = ++this.lastRecordedId;
    this.ring[this.next] = entry;
    if (++this.next === this.capacity) this.next = 0;
    if (this.count < this.capacity) this.count++;
  }

  /** The entries that match, oldest first, from the first with an id above `filter.afterId`. */
  private *matching(filter: JournalFilter): Generator<JournalEntry> {
    // The ring holds the last `count` ids recorded, in order: the cursor is an index.
    const oldestId = this.lastRecordedId - this.count + 1;
    const skip = Math.min(this.count, Math.max(0, (filter.afterId ?? 0) - oldestId + 1));
    const start = (this.next - this.count + this.capacity) % Math.max(1, this.capacity);
    for (let i = skip; i < this.count; i++) {
      const entry = this.ring[(start + i) % this.capacity]!;
      if (matches(entry, filter)) yield entry;
    }
  }

  /** Oldest first, all that match (up to `filter.limit`): for `requests()`, in memory. */
  list(filter: JournalFilter = {}): RecordedRequest[] {
    const found: RecordedRequest[] = [];
    const limit = filter.limit ?? Infinity;
    for (const entry of this.matching(filter)) {
      if (found.length >= limit) break;
      found.push(recorded(entry));
    }
    return found;
  }

  /**
   * Oldest first, the entries that match as JSON texts: as many as `filter.limit`
   * allows and as fit in `maxBytes` (at least one, whatever its size).
   */
  page(filter: JournalFilter, maxBytes: number): JournalPage {
    const items: string[] = [];
    const limit = filter.limit ?? Infinity;
    let bytes = 0;
    let lastId = filter.afterId ?? 0;
    for (const entry of this.matching(filter)) {
      if (items.length >= limit) return { items, nextAfter: lastId };
      const text = JSON.stringify(recorded(entry));
      bytes += Buffer.byteLength(text) + 1;
      if (items.length > 0 && bytes > maxBytes) return { items, nextAfter: lastId };
      items.push(text);
      lastId = entry.id;
    }
    return { items, nextAfter: null };
  }

  /** Empties the journal; ids continue where they were. */
  clear(): void {
    this.ring.fill(undefined);
    this.count = 0;
    this.next = 0;
  }
}

function pathOf(entry: JournalEntry): string {
  return entry.url.slice(0, entry.pathLength);
}

function matches(entry: JournalEntry, filter: JournalFilter): boolean {
  if (filter.method !== undefined && entry.method !== filter.method) return false;
  if (filter.path !== undefined) {
    const path = filter.path;
    const ok = path.endsWith("*")
      ? pathOf(entry).startsWith(path.slice(0, -1))
      : pathOf(entry) === path;
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
    time: isoTime(entry.timeMs),
    method: entry.method,
    path: pathOf(entry),
    query: entry.url.length > entry.pathLength ? entry.url.slice(entry.pathLength + 1) : "",
    status: entry.status,
    durationMs: entry.durationUs / 1000,
    plan: entry.plan,
  };
  if (entry.body !== undefined) {
    json.body = entry.body.toString("utf8");
    json.bodyBytes = entry.bodyBytes;
    json.bodyTruncated = entry.bodyBytes > entry.body.length;
  }
  return json;
}
