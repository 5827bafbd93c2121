/**
 * The PetstoreClient the commands use: the three operations over `send` wrapped
 * in `withRetry`, answers checked against the shared schema. `data` has int64
 * values as bigint; `raw` is the service's text, unchanged.
 */
import * as z from "zod/mini";
import { EXIT, HttpError, UsageError } from "../errors.js";
import { JsonSyntaxError, parseJson, stringifyJson } from "../schema/json.js";
import { type ListQuery, type NewPet, Pet } from "../schema/pet.js";
import { deprecationFromHeaders } from "./deprecation-headers.js";
import { parseBaseUrl } from "../profiles/environments.js";
import type { ProxyRoute } from "./proxy-env.js";
import { type RetryPolicy, withRetry } from "./retry.js";
import { createdUnread } from "./created.js";
import { printable } from "./response-errors.js";
import { createSender } from "./send.js";
import { nodeTransport, type Transport } from "./transport.js";
import type { ClientResult, HttpRequest, PetstoreClient, RetryEvent } from "./types.js";

export type { Transport, TransportRequest } from "./transport.js";

export const DEFAULT_TIMEOUT_MS = 15_000;

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Per attempt: from opening the connection to the last byte of the answer. */
  timeoutMs: number;
  retry: RetryPolicy;
  /** Send the key over plain http:// to a host that is not loopback. */
  allowInsecure?: boolean;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  random?: () => number;
  onRetry?: (event: RetryEvent) => void;
  /** One line per attempt (--verbose); never contains the key. */
  debug?: (line: string) => void;
  transport?: Transport;
  /**
   * How the base URL is reached (proxyRoute in proxy-env.ts, from HTTPS_PROXY and
   * the like): direct when absent. Ignored when `transport` is given.
   */
  proxy?: ProxyRoute;
  userAgent?: string;
}

/**
 * Fields the service may add later are ignored rather than fatal (`raw` still
 * has them); the fields we know are checked as strictly as the server checks them.
 */
const AnswerPet = z.object(Pet.shape);
const AnswerPetList = z.array(AnswerPet);

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function dataOf<T>(
  schema: z.ZodMiniType<T>,
  what: string,
  request: HttpRequest,
  result: Omit<ClientResult<unknown>, "data">,
): T {
  const fail = (problem: string) =>
    new HttpError(
      `the service's answer to ${request.method} ${request.path} is not ${what}: ${problem}`,
      EXIT.UNEXPECTED,
      result.response.status,
      { method: request.method, url: request.path },
      undefined,
      "check that the base URL points at the Pet Store service",
      result.response,
    );
  let json;
  try {
    json = parseJson(result.raw);
  } catch (error) {
    // The message may quote a character of the answer: no control reaches the terminal.
    if (error instanceof JsonSyntaxError) throw fail(`invalid JSON (${printable(error.message)})`);
    throw error;
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "body"))];
  throw fail(`unexpected ${fields.join(", ")}`);
}

export function createClient(options: ClientOptions): PetstoreClient {
  const base = parseBaseUrl(options.baseUrl);
  if (!base.ok) throw new UsageError(`the base URL ${base.problem}`);
  const now = options.now ?? Date.now;
  const send = withRetry(
    createSender({
      baseUrl: base.url,
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs,
      allowInsecure: options.allowInsecure ?? false,
      transport:
        options.transport ??
        nodeTransport(options.proxy?.kind === "proxy" ? options.proxy.proxy : undefined),
      now,
      userAgent: options.userAgent ?? "petstore-cli",
      debug: options.debug,
    }),
    options.retry,
    {
      sleep: options.sleep ?? realSleep,
      now,
      random: options.random ?? Math.random,
      onRetry: options.onRetry,
    },
  );

  async function call<T>(request: HttpRequest, schema: z.ZodMiniType<T>, what: string) {
    const response = await send(request);
    const result = { raw: response.body, response };
    return { ...result, data: dataOf(schema, what, request, result) };
  }

  return {
    get lastRateLimit() {
      return send.lastRateLimit;
    },
    listPets(query: ListQuery) {
      const params = new URLSearchParams({ limit: String(query.limit) });
      if (query.status !== undefined) params.set("status", query.status);
      return call({ method: "GET", path: `/pets?${params}` }, AnswerPetList, "a list of pets");
    },
    async createPet(pet: NewPet) {
      const body = stringifyJson({
        name: pet.name,
        categoryId: pet.categoryId,
        status: pet.status,
      });
      const request: HttpRequest = { method: "POST", path: "/pets", body };
      const response = await send(request);
      const result = { raw: response.body, response };
      try {
        return { ...result, data: dataOf(AnswerPet, "a pet", request, result) };
      } catch (error) {
        // The service said it created the pet: an answer we cannot read does not undo that.
        if (!(error instanceof HttpError)) throw error;
        const summary = { method: request.method, url: `${base.url}${request.path}` };
        return createdUnread(pet, summary, response, error.message);
      }
    },
    async getPet(id: bigint) {
      const request: HttpRequest = { method: "GET", path: `/pets/${id}` };
      const result = await call(request, AnswerPet, "a pet");
      const url = `${base.url}${request.path}`;
      return { ...result, deprecation: deprecationFromHeaders(result.response.headers, url) };
    },
  };
}
