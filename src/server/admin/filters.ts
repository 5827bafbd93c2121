/**
 * Filters of the request journal, from the query of `GET /__admin/requests` or
 * from the object given to `requests()`: `method` (any case), `path` (exact, or a
 * prefix ending in `*`), `status` (`404` or a class, `4xx`), `since` (an ISO 8601
 * time or Unix milliseconds, on the fake's clock), and for paging `after` (a
 * request id: those after it) and `limit` (how many at most).
 */
import { MAX_JOURNAL_SIZE, type JournalFilter } from "./request-journal.js";

const FILTER_NAMES = ["method", "path", "status", "since", "after", "limit"] as const;
type FilterName = (typeof FILTER_NAMES)[number];

export type Parsed<T> = { ok: true; value: T } | { ok: false; problems: string[] };

const RULES: Record<FilterName, string> = {
  method: "must be an HTTP method such as GET or POST",
  path: "must be a path starting with /, ending in * to match a prefix",
  status: "must be an HTTP status from 100 to 599, or a class such as 4xx",
  since: "must be an ISO 8601 time (2030-01-01T00:00:00Z) or Unix milliseconds",
  after: "must be a request id, a whole number (0 for the oldest on)",
  limit: `must be a whole number from 0 to ${MAX_JOURNAL_SIZE}`,
};

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function parseOne(name: FilterName, text: string, filter: JournalFilter): boolean {
  switch (name) {
    case "method":
      if (!/^[A-Za-z]{1,20}$/.test(text)) return false;
      filter.method = text.toUpperCase();
      return true;
    case "path":
      if (!text.startsWith("/") || text.length > 2048) return false;
      filter.path = text;
      return true;
    case "status": {
      const exact = /^[1-5][0-9]{2}$/.test(text);
      if (!exact && !/^[1-5]xx$/i.test(text)) return false;
      filter.status = exact ? { exact: Number(text) } : { class: Number(text[0]) };
      return true;
    }
    case "since": {
      const ms = /^[0-9]{1,15}$/.test(text)
        ? Number(text)
        : ISO_TIME.test(text)
          ? Date.parse(text)
          : NaN;
      if (!Number.isFinite(ms)) return false;
      filter.sinceMs = ms;
      return true;
    }
    case "after":
      if (!/^[0-9]{1,15}$/.test(text)) return false;
      filter.afterId = Number(text);
      return true;
    case "limit":
      if (!/^[0-9]{1,6}$/.test(text) || Number(text) > MAX_JOURNAL_SIZE) return false;
      filter.limit = Number(text);
      return true;
  }
}

function shown(text: string): string {
  return JSON.stringify(text.length > 60 ? text.slice(0, 57) + "..." : text);
}

/** Filters as text pairs: a name given twice, an unknown name or a bad value is a problem. */
export function parseFilters(pairs: Iterable<[string, string]>): Parsed<JournalFilter> {
  const filter: JournalFilter = {};
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [name, text] of pairs) {
    if (!(FILTER_NAMES as readonly string[]).includes(name)) {
      problems.push(`${shown(name)} is not a filter; filters: ${FILTER_NAMES.join(", ")}`);
      continue;
    }
    if (seen.has(name)) {
      problems.push(`${name} is given more than once`);
      continue;
    }
    seen.add(name);
    if (!parseOne(name as FilterName, text, filter)) {
      problems.push(`${name} ${RULES[name as FilterName]}; got ${shown(text)}`);
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: filter };
}

/** The query of `GET /__admin/requests`. */
export function parseFilterQuery(query: string): Parsed<JournalFilter> {
  return parseFilters(new URLSearchParams(query));
}
