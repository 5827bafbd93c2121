/**
 * Scripted answers (`/__admin/next`, `server.next()`): rules that give the next
 * requests that match a chosen answer, as WireMock's stubs and Mockoon's rules
 * do, chosen from outside the request. A rule is consulted where faults are
 * (after authentication, the rate limit, 404 and 405), and takes their place for
 * that request: the first rule, in the order they were added, that matches and
 * has uses left gives its answer. Spent rules stay listed with their use until
 * DELETE /__admin/next or /__admin/reset; MAX_RULES are kept at most.
 */
import * as z from "zod/mini";
import { unauthorizedReply, UNKNOWN_KEY } from "../auth.js";
import { integer, strict } from "../check.js";
import { errorReply, type Reply } from "../reply.js";
import { MAX_LATENCY_MS } from "../faults.js";
import { matches, METHOD, PATH } from "./request-journal.js";

export const MAX_RULES = 100;
/** The statuses a rule may answer: those the contract documents, and 500 and 503. */
const STATUSES = [400, 401, 404, 429, 500, 503];
const STATUS_RULE = `must be one of ${STATUSES.join(", ")}`;

export const Match = strict(
  {
    method: METHOD,
    path: PATH,
    key: z.optional(
      z.string({ error: "must be an API key" }).check(z.regex(/^.{1,4096}$/, "must be an API key")),
    ),
  },
  "must be an object {method?, path?, key?}",
);

export const Answer = strict(
  {
    status: z.optional(
      z
        .number({ error: STATUS_RULE })
        .check(z.refine((status) => STATUSES.includes(status), STATUS_RULE)),
    ),
    retryAfterSeconds: z.optional(integer(0, 86_400)),
    drop: z.optional(z.enum(["before", "after"], { error: "must be before or after" })),
    delayMs: z.optional(integer(0, MAX_LATENCY_MS)),
  },
  "must be an object such as {status}, {drop} or {delayMs}",
).check(
  z.refine(
    (answer) =>
      [answer.status, answer.drop, answer.delayMs].filter((v) => v !== undefined).length === 1,
    "give exactly one of status, drop or delayMs",
  ),
  z.refine(
    (answer) =>
      answer.retryAfterSeconds === undefined || answer.status === 429 || answer.status === 503,
    { message: "only with status 429 or 503", path: ["retryAfterSeconds"] },
  ),
);
export type ScriptedAnswer = z.infer<typeof Answer>;

export const NextRuleBody = strict(
  { match: z.optional(Match), answer: Answer, times: z.optional(integer(1, 10_000)) },
  'the body must be a JSON object {"match": {method?, path?, key?}, "answer": {...}, "times": N}',
);
export type NextRule = z.infer<typeof NextRuleBody>;

/** A rule as kept and listed: `used` counts the requests it answered. */
type RuleState = Required<NextRule> & { used: number };

/** Prism's `Prefer: code=S` (with `serve --prefer-code`), for a status a rule may answer. */
export function preferredAnswer(prefer: string | undefined): ScriptedAnswer | undefined {
  const status = Number(/(?:^|[\s,;])code=([0-9]{3})\b/.exec(prefer ?? "")?.[1]);
  return STATUSES.includes(status) ? { status } : undefined;
}

/** The answer of a scripted status other than 429 (which counts toward a ban: app.ts answers it). */
export function scriptedReply(status: number, retryAfterSeconds: number, onPet: boolean): Reply {
  const message = `a scripted answer (POST /__admin/next) of status ${status}`;
  if (status === 401) return unauthorizedReply(UNKNOWN_KEY);
  if (status === 404) return errorReply(onPet ? "pet_not_found" : "not_found", message);
  if (status !== 503) return errorReply(status === 400 ? "bad_request" : "internal_error", message);
  return errorReply("fault_injected", message, ["Retry-After", String(retryAfterSeconds)]);
}

export class ScriptedAnswers {
  private rules: RuleState[] = [];

  /** Adds a rule; a spent one makes room when MAX_RULES are kept; false when none is spent. */
  add({ match = {}, answer, times = 1 }: NextRule): RuleState | undefined {
    if (this.rules.length >= MAX_RULES) {
      const spent = this.rules.findIndex((rule) => rule.used >= rule.times);
      if (spent === -1) return undefined;
      this.rules.splice(spent, 1);
    }
    const rule = { match, answer, times, used: 0 };
    this.rules.push(rule);
    return rule;
  }

  list(): { rules: RuleState[] } {
    // Copies: a rule's use goes on counting after it is read.
    return { rules: this.rules.map((rule) => ({ ...rule })) };
  }

  clear(): void {
    this.rules = [];
  }

  /** The answer of a request, its use counted; undefined when no rule takes it. */
  take(method: string, path: string, key: string): ScriptedAnswer | undefined {
    const rule = this.rules.find(
      ({ match, times, used }) =>
        used < times &&
        matches(match, method, path) &&
        (match.key === undefined || match.key === key),
    );
    if (rule === undefined) return undefined;
    rule.used++;
    return rule.answer;
  }
}
