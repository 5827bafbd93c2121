/**
 * Filters of the request journal, from the query of `GET /__admin/requests` or
 * from the object given to `requests()`: `method` (any case), `path` (exact, or a
 * prefix ending in `*`), `status` (`404` or a class, `4xx`), `since` (an ISO 8601
 * time or Unix milliseconds, on the fake's clock), and for paging `after` (a
 * request id: those after it) and `limit` (how many at most). Each is described
 * once, for reading it and for the OpenAPI document's parameters.
 */
import type { Checked } from "../settings.js";
import { MAX_JOURNAL_SIZE, type JournalEntry, type JournalFilter } from "./request-journal.js";

type Test = (entry: JournalEntry) => boolean;

interface Filter {
  /** What a bad value is told. */
  rule: string;
  /** For the document. */
  description: string;
  /** What the text asks for, or undefined when it is not valid. */
  read(text: string): Test | Omit<JournalFilter, "tests"> | undefined;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const WHOLE_NUMBER = /^[0-9]{1,15}$/;

const FILTERS: Record<string, Filter> = {
  method: {
    rule: "must be an HTTP method such as GET or POST",
    description: "GET, POST... (any case)",
    read: (text) =>
      /^[A-Za-z]{1,20}$/.test(text) ? (entry) => entry.method === text.toUpperCase() : undefined,
  },
  path: {
    rule: "must be a path starting with /, ending in * to match a prefix",
    description: "Exact (/v1/pets), or a prefix ending in * (/v1/pets*)",
    read(text) {
      if (!text.startsWith("/") || text.length > 2048) return undefined;
      const prefix = text.endsWith("*") ? text.slice(0, -1) : undefined;
      return (entry) => {
        const path = entry.url.slice(0, entry.pathLength);
        return prefix === undefined ? path === text : path.startsWith(prefix);
      };
    },
  },
  status: {
    rule: "must be an HTTP status from 100 to 599, or a class such as 4xx",
    description: "A status (404) or a class (4xx)",
    read(text) {
      if (/^[1-5][0-9]{2}$/.test(text)) return (entry) => entry.status === Number(text);
      if (!/^[1-5]xx$/i.test(text)) return undefined;
      return (entry) => entry.status !== null && String(entry.status)[0] === text[0];
    },
  },
  since: {
    rule: "must be an ISO 8601 time (2030-01-01T00:00:00Z) or Unix milliseconds",
    description: "An ISO 8601 time or Unix milliseconds (the fake's clock): at or after it",
    read(text) {
      const ms = WHOLE_NUMBER.test(text)
        ? Number(text)
        : ISO_TIME.test(text)
          ? Date.parse(text)
          : NaN;
      return Number.isFinite(ms) ? (entry) => entry.timeMs >= ms : undefined;
    },
  },
  after: {
    rule: "must be a request id, a whole number (0 for the oldest on)",
    description: "Only requests with a larger id: the nextAfter of the previous page",
    read: (text) => (WHOLE_NUMBER.test(text) ? { afterId: Number(text) } : undefined),
  },
  limit: {
    rule: `must be a whole number from 0 to ${MAX_JOURNAL_SIZE}`,
    description: `At most this many (0 to ${MAX_JOURNAL_SIZE})`,
    read: (text) =>
      /^[0-9]{1,6}$/.test(text) && Number(text) <= MAX_JOURNAL_SIZE
        ? { limit: Number(text) }
        : undefined,
  },
};

/** The filters as the OpenAPI document's query parameters. */
export const FILTER_PARAMETERS = Object.entries(FILTERS).map(([name, { description }]) => ({
  name,
  in: "query",
  description,
  schema: { type: "string" },
}));

function shown(text: string): string {
  return JSON.stringify(text.length > 60 ? text.slice(0, 57) + "..." : text);
}

/** Filters as text pairs: a name given twice, an unknown name or a bad value is a problem. */
export function parseFilters(pairs: Iterable<[string, string]>): Checked<JournalFilter> {
  const tests: Test[] = [];
  const filter: JournalFilter = { tests };
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const [name, text] of pairs) {
    const known = Object.hasOwn(FILTERS, name) ? FILTERS[name] : undefined;
    const value = known?.read(text);
    if (known === undefined) {
      problems.push(`${shown(name)} is not a filter; filters: ${Object.keys(FILTERS).join(", ")}`);
    } else if (seen.has(name)) {
      problems.push(`${name} is given more than once`);
    } else if (value === undefined) {
      problems.push(`${name} ${known.rule}; got ${shown(text)}`);
    } else if (typeof value === "function") {
      tests.push(value);
    } else {
      Object.assign(filter, value);
    }
    seen.add(name);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: filter };
}
