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
import { strict } from "../check.js";
import type { PlanName } from "../keys.js";
import { MAX_JOURNAL_SIZE } from "../serve-defaults.js";
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

const WHOLE_NUMBER = /^[0-9]{1,15}$/;
const sinceMs = (text: string) => (WHOLE_NUMBER.test(text) ? Number(text) : Date.parse(text));

/** A text of a query or a rule that matches `pattern` and passes `pass`, or is told `rule`. */
const text = (pattern: RegExp, rule: string, pass = (_: string) => true) =>
  z.optional(z.string({ error: rule }).check(z.regex(pattern, rule), z.refine(pass, rule)));

/** A method to match, in any case: of the journal's filters and a scripted answer's rule. */
export const METHOD = text(/^[A-Za-z]{1,20}$/, "must be an HTTP method such as GET or POST");
export const PATH = text(
  /^\/.{0,2047}$/,
  "must be a path starting with /, ending in * to match a prefix",
);

/** Whether a request's `method` and `path` are those of `wanted` (each when given). */
export const matches = (wanted: { method?: string; path?: string }, method: string, path: string) =>
  (wanted.method === undefined || wanted.method.toUpperCase() === method) &&
  (wanted.path === undefined ||
    (wanted.path.endsWith("*") ? path.startsWith(wanted.path.slice(0, -1)) : path === wanted.path));

/**
 * The journal's filters: the query of `GET /__admin/requests`, and the object
 * given to `requests()` (its values as the query's text). `after` (a request id:
 * those after it) and `limit` (how many at most) page.
 */
const FILTER = strict(
  {
    method: METHOD,
    path: PATH,
    status: text(
      /^[1-5](?:[0-9]{2}|xx)$/i,
      "must be an HTTP status from 100 to 599, or a class such as 4xx",
    ),
    since: text(
      /^([0-9]{1,15}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))$/,
      "must be an ISO 8601 time (2030-01-01T00:00:00Z) or Unix milliseconds",
      (since) => Number.isFinite(sinceMs(since)),
    ),
    after: text(WHOLE_NUMBER, "must be a request id, a whole number (0 for the oldest on)"),
    limit: text(
      /^[0-9]{1,6}$/,
      `must be a whole number from 0 to ${MAX_JOURNAL_SIZE}`,
      (limit) => Number(limit) <= MAX_JOURNAL_SIZE,
    ),
  },
  "the filters must be an object {method?, path?, status?, since?, after?, limit?}",
);

/** The filters' text as a test of an entry, and the cursor and count of a page. */
export const JOURNAL_FILTER = z.pipe(
  FILTER,
  z.transform(({ status, since, after, limit, ...wanted }) => ({
    afterId: Number(after ?? 0),
    limit: Number(limit ?? Infinity),
    test: (entry: JournalEntry) =>
      matches(wanted, entry.method, entry.url.slice(0, entry.pathLength)) &&
      (status === undefined ||
        (/xx$/i.test(status)
          ? String(entry.status)[0] === status[0]
          : entry.status === Number(status))) &&
      (since === undefined || entry.timeMs >= sinceMs(since)),
  })),
);
export type JournalFilter = z.output<typeof JOURNAL_FILTER>;

export class RequestJournal {
  /** The entry of request `id` is at `(id - 1) % capacity`. */
  private readonly ring: Array<JournalEntry | undefined>;
  private lastId = 0;
  /** The last id recorded before the journal was last emptied. */
  private clearedId = 0;

  /** Bytes kept of a POST body: MAX_BODY_KEPT, less when the journal is large (BODY_BUDGET in all). */
  readonly bodyLimit: number;

  constructor(readonly capacity: number) {
    this.ring = new Array<JournalEntry | undefined>(capacity);
    this.bodyLimit = Math.min(MAX_BODY_KEPT, Math.floor(BODY_BUDGET / Math.max(1, capacity)));
  }

  /** The entry of a request that arrives, recorded once it is answered; none with the journal off. */
  entry(timeMs: number, method: string, url: string, pathLength: number, plan: PlanName | null) {
    return this.capacity > 0 ? new JournalEntry(timeMs, method, url, pathLength, plan) : undefined;
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
    entry.id = ++this.lastId;
    this.ring[(entry.id - 1) % this.capacity] = entry;
  }

  /**
   * A page of `GET /__admin/requests`, or all of `requests()`: the entries that
   * match, oldest first, after `afterId`, `limit` at most and as many as fit in
   * about `maxBytes` of JSON (at least one, whatever its size).
   */
  page({ test, afterId, limit }: JournalFilter, maxBytes = Infinity) {
    const requests: RecordedRequest[] = [];
    const answer = (nextAfter: number | null) => ({
      requests,
      journalSize: this.capacity,
      lastId: this.lastId,
      nextAfter,
    });
    const oldestId = Math.max(this.clearedId, this.lastId - this.capacity) + 1;
    let bytes = 0;
    for (let id = Math.max(oldestId, afterId + 1); id <= this.lastId; id++) {
      const entry = this.ring[(id - 1) % this.capacity]!;
      if (!test(entry)) continue;
      const request = recorded(entry);
      bytes += maxBytes === Infinity ? 0 : Buffer.byteLength(JSON.stringify(request)) + 1;
      if (requests.length >= limit || (requests.length > 0 && bytes > maxBytes)) {
        return answer(requests.at(-1)?.id ?? afterId);
      }
      requests.push(request);
    }
    return answer(null);
  }

  /** Empties the journal; ids continue where they were. */
  clear(): void {
    this.ring.fill(undefined);
    this.clearedId = this.lastId;
  }
}

/** A journal entry as JSON (`GET /__admin/requests`, `requests()`); the package exports its type. */
function recorded(entry: JournalEntry) {
  const { body, bodyBytes } = entry;
  return {
    id: entry.id,
    time: isoTime(entry.timeMs),
    method: entry.method,
    path: entry.url.slice(0, entry.pathLength),
    query: entry.url.length > entry.pathLength ? entry.url.slice(entry.pathLength + 1) : "",
    status: entry.status,
    durationMs: entry.durationUs / 1000,
    plan: entry.plan,
    ...(body && { body: body.toString("utf8"), bodyBytes, bodyTruncated: bodyBytes > body.length }),
  };
}
export type RecordedRequest = ReturnType<typeof recorded>;
