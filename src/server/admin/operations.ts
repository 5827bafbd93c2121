/**
 * The control plane's routes, one entry each: its method and path, the body it
 * takes and the answers it gives (their schemas: bodies.ts), what its OpenAPI
 * entry says, and what it does on the ControlPlane. routes.ts serves this table
 * (and the document itself) and openapi.ts documents it, so a route added here
 * is both served and documented.
 */
import type { IncomingMessage } from "node:http";
import * as z from "zod/mini";
import { errorReply, type Reply } from "../reply.js";
import { faultsAnswer } from "../faults.js";
import { StoreError } from "../store/types.js";
import {
  CLOCK_BODY,
  ClockAnswer,
  count,
  FAULTS_BODY,
  Faults,
  KEY_BODY,
  KeyEntryAnswer,
  named,
  RESET_BODY,
  type Body,
} from "./bodies.js";
import { LATEST_CLOCK_MS } from "./clock.js";
import type { ControlPlane } from "./control-plane.js";
import { FILTER_PARAMETERS, parseFilters } from "./filters.js";
import { PAGE_BYTES, Requests } from "./request-journal.js";

/** A route: how it is served, and what the document (openapi.ts) says of it. */
export interface AdminRoute<T = unknown> {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** A path under /__admin; `{key}` is a path parameter, the rest of the path. */
  path: string;
  operationId: string;
  summary: string;
  body?: Body<T>;
  parameters?: readonly Record<string, unknown>[];
  /** The schema of each answer that is not an error (null: no body). */
  answers: Record<number, z.ZodMiniType | null>;
  /** The errors it answers besides those every route answers, and every route with a body. */
  errors?: Record<number, string>;
  /** `body`: as checked; `key`: the path parameter, percent-decoded; `note`: a line in the log. */
  handle(
    plane: ControlPlane,
    request: {
      body: T;
      query: string;
      key: string;
      req: IncomingMessage;
      note(line: string): void;
    },
  ): Reply | Promise<Reply>;
}

/** A route; this ties its handler to the body it checks. */
const route = <T>(definition: AdminRoute<T>): AdminRoute => definition;

export const json = (status: number, value: unknown): Reply => ({
  status,
  body: JSON.stringify(value),
});
const NO_CONTENT: Reply = { status: 204, body: "" };

export function invalid(problems: readonly string[]): Reply {
  return errorReply("invalid_admin_request", problems.join("; "));
}

function resetFailure(error: unknown, note: (line: string) => void): Reply {
  if (error instanceof StoreError && error.code === "not_stored") {
    return errorReply("insufficient_storage", error.message);
  }
  note(`the store could not be reset: ${error instanceof Error ? error.message : String(error)}`);
  return errorReply(
    "internal_error",
    "the store could not be reset (the fake's log says why); it still serves the pets it had",
  );
}

const LATEST_CLOCK = new Date(LATEST_CLOCK_MS).toISOString();

export const ADMIN_ROUTES: readonly AdminRoute[] = [
  route({
    method: "GET",
    path: "/__admin/health",
    operationId: "health",
    summary: "Readiness: the number of pets and the uptime.",
    answers: { 200: z.object({ status: z.literal("ok"), pets: count(), uptimeSeconds: count() }) },
    handle: (plane) => json(200, plane.health()),
  }),
  route({
    method: "POST",
    path: "/__admin/reset",
    operationId: "reset",
    summary:
      "The store back to what it held at start-up (durably); rate limits, bans and the journal cleared.",
    body: RESET_BODY,
    answers: { 200: z.object({ status: z.literal("reset"), pets: count() }) },
    errors: {
      500: "internal_error: the store could not be reset; unchanged",
      507: "insufficient_storage: the disk refused the write; unchanged",
    },
    async handle(plane, { note }) {
      try {
        await plane.reset();
      } catch (error) {
        return resetFailure(error, note);
      }
      return json(200, { status: "reset", pets: plane.health().pets });
    },
  }),
  route({
    method: "GET",
    path: "/__admin/requests",
    operationId: "listRequests",
    summary:
      "The request journal, oldest first, a page at a time: each answer holds about " +
      `${PAGE_BYTES / 1024 / 1024} MiB of JSON at most; nextAfter says where the next one starts.`,
    parameters: FILTER_PARAMETERS,
    answers: { 200: Requests },
    errors: { 400: "invalid_admin_request" },
    handle(plane, { query }) {
      const filter = parseFilters(new URLSearchParams(query));
      if (!filter.ok) return invalid(filter.problems);
      return { status: 200, body: plane.parts.journal.page(filter.value, PAGE_BYTES) };
    },
  }),
  route({
    method: "DELETE",
    path: "/__admin/requests",
    operationId: "clearRequests",
    summary: "Empties the journal (ids continue).",
    answers: { 204: null },
    handle(plane) {
      plane.clearRequests();
      return NO_CONTENT;
    },
  }),
  route({
    method: "GET",
    path: "/__admin/clock",
    operationId: "getClock",
    summary: "The fake's time.",
    answers: { 200: ClockAnswer },
    handle: (plane) => json(200, plane.clock()),
  }),
  route({
    method: "POST",
    path: "/__admin/clock",
    operationId: "advanceClock",
    summary:
      "Moves the fake's clock forward: rate-limit windows, bans, Date and X-RateLimit-Reset " +
      `follow. Up to ${LATEST_CLOCK} in all, so that every date the fake sends keeps a ` +
      "four-digit year.",
    body: CLOCK_BODY,
    answers: { 200: ClockAnswer },
    errors: {
      400:
        "invalid_admin_request (names the field), invalid_json or empty_body; also a step " +
        `that would take the clock past ${LATEST_CLOCK} (the message says how many seconds are left)`,
    },
    handle(plane, { body }) {
      const moved = plane.advanceClock(body);
      if (!moved.ok) return invalid([`advanceSeconds: ${moved.problem}`]);
      return json(200, moved.clock);
    },
  }),
  route({
    method: "GET",
    path: "/__admin/faults",
    operationId: "getFaults",
    summary: "Latency, fail rate and fail mode.",
    answers: { 200: Faults },
    handle: (plane) => json(200, faultsAnswer(plane.parts.faults.get())),
  }),
  route({
    method: "PUT",
    path: "/__admin/faults",
    operationId: "setFaults",
    summary: "Replaces the fault settings (as --latency, --fail-rate, --fail-mode, --fault-seed).",
    body: FAULTS_BODY,
    answers: { 200: Faults },
    handle(plane, { body }) {
      plane.setFaults(body);
      return json(200, faultsAnswer(plane.parts.faults.get()));
    },
  }),
  route({
    method: "GET",
    path: "/__admin/keys",
    operationId: "listKeys",
    summary: "The keys (redacted) with their plans and remaining quota.",
    answers: { 200: named("Keys", z.object({ keys: z.array(KeyEntryAnswer) })) },
    handle: (plane) => json(200, { keys: plane.keyEntries() }),
  }),
  route({
    method: "POST",
    path: "/__admin/keys",
    operationId: "addKey",
    summary: "Adds a key, or gives a known key this plan (its counters kept).",
    body: KEY_BODY,
    answers: { 201: KeyEntryAnswer, 200: KeyEntryAnswer },
    handle(plane, { body }) {
      const { entry, created } = plane.addKey(body);
      return json(created ? 201 : 200, entry);
    },
  }),
  route({
    method: "DELETE",
    path: "/__admin/keys/{key}",
    operationId: "removeKey",
    summary: "Removes a key.",
    parameters: [
      {
        name: "key",
        in: "path",
        required: true,
        description: "The key itself, percent-encoded",
        schema: { type: "string" },
      },
    ],
    answers: { 204: null },
    errors: { 404: "admin_key_not_found, or not_found when the control plane is off" },
    handle: (plane, { key }) =>
      plane.removeKey(key)
        ? NO_CONTENT
        : errorReply("admin_key_not_found", "the fake has no such key (see GET /__admin/keys)"),
  }),
];
