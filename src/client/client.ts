/**
 * The PetstoreClient the commands use: the three operations over `send` wrapped
 * in `withRetry`, answers checked against the shared schema. `data` has int64
 * values as bigint; `raw` is the service's text, unchanged.
 */
import * as z from "zod/mini";
import { EXIT, HttpError, OutcomeUnknownError, UsageError } from "../errors.js";
import { parseJson, stringifyJson } from "../schema/json.js";
import { type ListQuery, type NewPet, Pet, petToJson } from "../schema/pet.js";
import { deprecationFromHeaders, idFromLocation } from "./headers.js";
import { parseBaseUrl } from "../profiles/environments.js";
import type { ProxyRoute } from "./proxy-env.js";
import { type RetryHooks, type RetryPolicy, withRetry } from "./retry.js";
import { printable, UNKNOWN_ADD_HINT } from "./response-errors.js";
import { createSender } from "./send.js";
import { nodeTransport, type Transport } from "./transport.js";
import type { HttpRequest, PetstoreClient } from "./types.js";
import type { HttpResponse } from "../http-response.js";

export const DEFAULT_TIMEOUT_MS = 15_000;

export interface ClientOptions extends Partial<RetryHooks> {
  baseUrl: string;
  apiKey?: string;
  /** Per attempt: from opening the connection to the last byte of the answer. */
  timeoutMs: number;
  retry: RetryPolicy;
  /** Send the key over plain http:// to a host that is not loopback. */
  allowInsecure?: boolean;
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
  response: HttpResponse,
): T {
  const fail = (problem: string) =>
    new HttpError(
      `the service's answer to ${request.method} ${request.path} is not ${what}: ${problem}`,
      EXIT.UNEXPECTED,
      response.status,
      { method: request.method, url: request.path },
      undefined,
      "check that the base URL points at the Pet Store service",
      response,
    );
  let json;
  try {
    json = parseJson(response.body);
  } catch (error) {
    // The message may quote a character of the answer: no control reaches the terminal.
    throw fail(`invalid JSON (${printable((error as Error).message)})`);
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
  const proxy = options.proxy?.kind === "proxy" ? options.proxy.proxy : undefined;
  const sender = createSender({
    ...options,
    baseUrl: base.url,
    allowInsecure: options.allowInsecure ?? false,
    transport: options.transport ?? nodeTransport(proxy),
    now,
    userAgent: options.userAgent ?? "petstore-cli",
  });
  const send = withRetry(sender, options.retry, {
    sleep: options.sleep ?? realSleep,
    now,
    random: options.random ?? Math.random,
    onRetry: options.onRetry,
  });

  async function call<T>(request: HttpRequest, schema: z.ZodMiniType<T>, what: string) {
    const response = await send(request);
    return { raw: response.body, response, data: dataOf(schema, what, request, response) };
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
      const { name, categoryId, status } = pet;
      const body = stringifyJson({ name, categoryId, status });
      try {
        return await call({ method: "POST", path: "/pets", body }, AnswerPet, "a pet");
      } catch (error) {
        // The service said it created the pet (2xx): an answer we cannot read does not undo
        // that. With a Location naming the id, the pet is the one sent, with that id.
        if (!(error instanceof HttpError) || error.status >= 300 || !error.response) throw error;
        const { message, response } = error;
        const id = idFromLocation(response.headers.location);
        if (id === undefined) {
          throw new OutcomeUnknownError(
            `${message}; it answered ${response.status}, so the pet was most likely added, but no id can be read (no Location header names one)`,
            { method: "POST", url: `${base.url}/pets` },
            UNKNOWN_ADD_HINT,
          );
        }
        const data: Pet = { id, name, categoryId };
        if (status !== undefined) data.status = status;
        return { data, raw: petToJson(data), response, unreadable: message };
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
