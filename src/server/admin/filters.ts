/**
 * Filters of the request journal: the query of `GET /__admin/requests`, and the
 * object given to `requests()` (its values as the query's text): `method` (any
 * case), `path` (exact, or a prefix ending in `*`), `status` (`404` or a class,
 * `4xx`), `since` (an ISO 8601 time or Unix milliseconds, on the fake's clock),
 * and for paging `after` (a request id: those after it) and `limit` (how many at
 * most). One zod object: its words, and its descriptions for the document.
 */
import * as z from "zod/mini";
import { strict } from "../check.js";
import { MAX_JOURNAL_SIZE } from "../serve-defaults.js";
import type { JournalEntry, JournalFilter } from "./request-journal.js";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const WHOLE_NUMBER = /^[0-9]{1,15}$/;
const sinceMs = (text: string) => (WHOLE_NUMBER.test(text) ? Number(text) : Date.parse(text));

/** A filter's text: `rule` is what a text that does not `pass` is told. */
const filter = (pass: (text: string) => boolean, rule: string, description: string) =>
  z.optional(z.string({ error: rule }).check(z.refine(pass, rule), z.describe(description)));

const FILTER = strict(
  {
    method: filter(
      (text) => /^[A-Za-z]{1,20}$/.test(text),
      "must be an HTTP method such as GET or POST",
      "GET, POST... (any case)",
    ),
    path: filter(
      (text) => text.startsWith("/") && text.length <= 2048,
      "must be a path starting with /, ending in * to match a prefix",
      "Exact (/v1/pets), or a prefix ending in * (/v1/pets*)",
    ),
    status: filter(
      (text) => /^[1-5](?:[0-9]{2}|xx)$/i.test(text),
      "must be an HTTP status from 100 to 599, or a class such as 4xx",
      "A status (404) or a class (4xx)",
    ),
    since: filter(
      (text) => (WHOLE_NUMBER.test(text) || ISO_TIME.test(text)) && Number.isFinite(sinceMs(text)),
      "must be an ISO 8601 time (2030-01-01T00:00:00Z) or Unix milliseconds",
      "An ISO 8601 time or Unix milliseconds (the fake's clock): at or after it",
    ),
    after: filter(
      (text) => WHOLE_NUMBER.test(text),
      "must be a request id, a whole number (0 for the oldest on)",
      "Only requests with a larger id: the nextAfter of the previous page",
    ),
    limit: filter(
      (text) => /^[0-9]{1,6}$/.test(text) && Number(text) <= MAX_JOURNAL_SIZE,
      `must be a whole number from 0 to ${MAX_JOURNAL_SIZE}`,
      `At most this many (0 to ${MAX_JOURNAL_SIZE})`,
    ),
  },
  "the filters must be an object {method?, path?, status?, since?, after?, limit?}",
);

/** The filters as the OpenAPI document's query parameters. */
export const FILTER_PARAMETERS = Object.entries(
  (z.toJSONSchema(FILTER) as { properties: Record<string, { description: string }> }).properties,
).map(([name, { description }]) => ({
  name,
  in: "query",
  description,
  schema: { type: "string" },
}));

/** The filters' text as a test on each entry, and the cursor and count of a page. */
export const JOURNAL_FILTER = z.pipe(
  FILTER,
  z.transform(({ method, path, status, since, after, limit }): JournalFilter => {
    const tests: Array<(entry: JournalEntry) => boolean> = [];
    if (method !== undefined) tests.push((entry) => entry.method === method.toUpperCase());
    if (path?.endsWith("*")) {
      const prefix = path.slice(0, -1);
      tests.push((entry) => entry.url.slice(0, entry.pathLength).startsWith(prefix));
    } else if (path !== undefined) {
      tests.push((entry) => entry.pathLength === path.length && entry.url.startsWith(path));
    }
    if (status !== undefined && /xx$/i.test(status)) {
      tests.push((entry) => entry.status !== null && String(entry.status)[0] === status[0]);
    } else if (status !== undefined) {
      tests.push((entry) => entry.status === Number(status));
    }
    if (since !== undefined) tests.push((entry) => entry.timeMs >= sinceMs(since));
    const afterId = after === undefined ? undefined : Number(after);
    return { tests, afterId, limit: limit === undefined ? undefined : Number(limit) };
  }),
);
