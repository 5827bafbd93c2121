/**
 * The request journal: the last `capacity` requests the fake answered (or cut off
 * with a reset fault), oldest first, for `GET /__admin/requests` and
 * `requests()`. It holds what a test asserts on: method, path, query, status,
 * duration, the fake's time, the plan of the key (never the key: the
 * Authorization header is not kept) and, for a POST, the start of the body as
 * received (`bodyLimit` bytes). Recording is one small object per request, made
 * when it arrives and put in a ring when it is answered, so it costs the request
 * path next to nothing; the JSON form is made only when read, a page at a time
 * (`page`): one read never builds more than about PAGE_BYTES of JSON, whatever the
 * journal holds.
 */
import * as z from "zod/mini";
import { PLAN, type PlanName } from "../keys.js";
import { count, described, named } from "./bodies.js";
import { isoTime } from "./clock.js";

/** Bytes of a POST body kept per request; the rest is counted, not kept. */
export const MAX_BODY_KEPT = 64 * 1024;
/** Bytes of bodies the whole journal keeps at most: a larger journal keeps less of each. */
export const BODY_BUDGET = 64 * 1024 * 1024;
/** About how many bytes of JSON one answer of `GET /__admin/requests` holds at most. */
export const PAGE_BYTES = 1024 * 1024;

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

const POST_ONLY = "POST only: ";

/** A journal entry as JSON (`GET /__admin/requests`, `requests()`); the package exports its type. */
export const RecordedRequestAnswer = named(
  "RecordedRequest",
  z.object({
    id: described(z.int().check(z.gte(1)), "Increases by one per request; never reused."),
    time: described(z.iso.datetime(), "The fake's clock."),
    method: z.string(),
    path: z.string(),
    query: described(z.string(), "Without `?`; empty when none."),
    status: described(z.nullable(z.int()), "null: the connection was reset."),
    durationMs: z.number().check(z.gte(0)),
    plan: described(z.nullable(PLAN), "The key's plan; never the key."),
    body: z.optional(
      described(
        z.string(),
        `${POST_ONLY}the start of the body as received, decoded as UTF-8 (invalid bytes become ` +
          `U+FFFD): its first ${MAX_BODY_KEPT / 1024} KiB, or ${BODY_BUDGET / 1024 / 1024} MiB / ` +
          "journalSize bytes when the journal keeps more than 1,024 requests (cut before a " +
          "character, never inside one).",
      ),
    ),
    bodyBytes: z.optional(described(count(), `${POST_ONLY}the body's whole size in bytes.`)),
    bodyTruncated: z.optional(
      described(z.boolean(), `${POST_ONLY}true when \`body\` is only the start of it.`),
    ),
  }),
);
export type RecordedRequest = z.infer<typeof RecordedRequestAnswer>;

/** One answer of `GET /__admin/requests`. */
export const Requests = named(
  "Requests",
  z.object({
    requests: described(
      z.array(RecordedRequestAnswer),
      `Oldest first; about ${PAGE_BYTES / 1024 / 1024} MiB of JSON at most (always at least one request).`,
    ),
    journalSize: described(count(), "How many are kept (--journal-size)."),
    lastId: described(count(), "The id of the newest request recorded; 0 before any."),
    nextAfter: described(
      z.nullable(count()),
      "More requests match than this answer holds: ask again with after=nextAfter. " +
        "null: this answer holds the last of them.",
    ),
  }),
);

/** Which entries a read gives: those passing every test, after `afterId`, `limit` at most. */
export interface JournalFilter {
  tests?: Array<(entry: JournalEntry) => boolean>;
  /** Requests with a larger id only: where the previous page ended. */
  afterId?: number;
  limit?: number;
}

export class RequestJournal {
  private readonly ring: Array<JournalEntry | undefined>;
  /** Where the next entry goes. */
  private next = 0;
  private count = 0;
  private lastRecordedId = 0;

  /** Bytes kept of a POST body: MAX_BODY_KEPT, less when the journal is large (BODY_BUDGET in all). */
  readonly bodyLimit: number;

  constructor(readonly capacity: number) {
    this.ring = new Array<JournalEntry | undefined>(capacity);
    this.bodyLimit = Math.min(MAX_BODY_KEPT, Math.floor(BODY_BUDGET / Math.max(1, capacity)));
  }

  /** The body of a POST as received, for its entry. */
  keepBody(entry: JournalEntry, bytes: Buffer): void {
    let end = Math.min(bytes.length, this.bodyLimit);
    // Cut before a character, never inside one.
    if (end < bytes.length) while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
    entry.body = Buffer.from(bytes.subarray(0, end));
    entry.bodyBytes = bytes.length;
  }

  /** The request was answered (`status`) or cut off (null): its entry goes into the ring. */
  record(entry: JournalEntry, status: number | null, durationMs: number): void {
    entry.status = status;
    entry.durationUs = Math.round(durationMs * 1000);
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
      if (filter.tests?.every((test) => test(entry)) ?? true) yield entry;
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
   * The answer of `GET /__admin/requests` (a Requests): the entries that match,
   * oldest first, as many as `filter.limit` allows and as fit in about `maxBytes`
   * (at least one, whatever its size). Each entry's JSON is made on its own: never
   * one huge string.
   */
  page(filter: JournalFilter, maxBytes: number): string {
    const items: string[] = [];
    const limit = filter.limit ?? Infinity;
    let bytes = 0;
    let lastId = filter.afterId ?? 0;
    let nextAfter: number | null = null;
    for (const entry of this.matching(filter)) {
      const text = items.length < limit ? JSON.stringify(recorded(entry)) : "";
      bytes += Buffer.byteLength(text) + 1;
      if (items.length >= limit || (items.length > 0 && bytes > maxBytes)) {
        nextAfter = lastId;
        break;
      }
      items.push(text);
      lastId = entry.id;
    }
    return (
      `{"requests":[${items.join(",")}],"journalSize":${this.capacity},` +
      `"lastId":${this.lastRecordedId},"nextAfter":${nextAfter}}`
    );
  }

  /** Empties the journal; ids continue where they were. */
  clear(): void {
    this.ring.fill(undefined);
    this.count = 0;
    this.next = 0;
  }
}

function recorded(entry: JournalEntry): RecordedRequest {
  const json: RecordedRequest = {
    id: entry.id,
    time: isoTime(entry.timeMs),
    method: entry.method,
    path: entry.url.slice(0, entry.pathLength),
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
