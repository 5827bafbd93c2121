/**
 * `GET /` and `/__home/*`: the home page, its JSON index and files, and the
 * reads of the pets, the keys and the OpenAPI document that the page shows.
 * Outside the API: no key and no quota (the rate-limit headers show where the
 * client stands, uncounted), and nothing here reaches the request journal, so an
 * open page does not change what it shows. The pets are read through the API's
 * own list (`list`, the same reply as `GET /v1/pets`), for requests from this
 * machine only: that read needs no key. The document is the one
 * `GET /v1/openapi.json` serves (`openApi`). The keys are shown in full, with
 * the fake's health and verdict, to whoever may use the control plane (`access`):
 * on a local fake they are not secrets from the person running it, and the
 * control plane may add keys anyway.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import Negotiator from "negotiator";
import { fakeOrigin } from "../openapi-route.js";
import { parseJson } from "../../schema/json.js";
import { errorReply, methodNotAllowed, printable, type Reply } from "../reply.js";
import { createAssetStore, type AssetReader } from "./assets.js";
import { isLocalRequest } from "./local-request.js";
import { HOME_PREFIX, indexJson, PAGE_CSP, pageHtml, PETS_SHOWN } from "./page.js";
import { refusal, type AdminAccess } from "../admin/access.js";
import { health, keyEntry, type Fake, type KeyEntry } from "../admin/routes.js";
import type { Pet } from "../../schema/pet.js";

export interface HomeOptions {
  /** The reply of `GET /v1/pets?<query>`. */
  list(query: string): Reply;
  /** The text of `GET /v1/openapi.json` for this request. */
  openApi(req: IncomingMessage): string;
  /** Who may read the pets without a key; default: requests from this machine. */
  mayReadPets?(req: IncomingMessage): boolean;
  /** The fake whose keys, health and verdict the page shows, to whoever `access` lets use the control plane. */
  fake: Fake;
  access: AdminAccess;
  /** Where the page's files come from; default: dist/home/ or the binary's assets. */
  readAsset?: AssetReader;
}

/** One request being answered. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  limitHeaders: readonly string[];
}

const MEDIA_TYPES = ["application/json", "text/html"];
const COMMON_HEADERS = ["X-Content-Type-Options", "nosniff", "Referrer-Policy", "no-referrer"];

export function isHomePath(path: string): boolean {
  return path === "/" || path.startsWith(HOME_PREFIX);
}

function send(
  { req, res, limitHeaders }: Exchange,
  status: number,
  headers: readonly string[],
  body?: string | Buffer,
): number {
  const all = [...headers, ...COMMON_HEADERS, ...limitHeaders];
  if (body !== undefined) all.push("Content-Length", String(Buffer.byteLength(body)));
  res.writeHead(status, all);
  res.end(req.method === "HEAD" ? undefined : body);
  return status;
}

function sendReply(exchange: Exchange, reply: Reply): number {
  const headers = ["Content-Type", "application/json", "Cache-Control", "no-store"];
  return send(exchange, reply.status, [...headers, ...(reply.headers ?? [])], reply.body);
}

/** The reply's body as JSON, or the message of the Error body it is. */
function parsed<T>(reply: Reply, parse: (text: string) => unknown = JSON.parse): T | string {
  const body = parse(reply.body.toString()) as T & { message: string };
  return reply.status === 200 ? body : body.message;
}

/**
 * Its route answers the request and returns its status, or undefined when the path
 * is not the home page's. `limitHeaders`: the X-RateLimit headers of the client's
 * key or address, which every answer of the fake carries (here without using quota).
 */
export function createHomeRoute(options: HomeOptions) {
  const assets = createAssetStore(options.readAsset);
  const { fake, access } = options;
  const mayReadPets = options.mayReadPets ?? isLocalRequest;

  /** `GET /__home/keys`: the entries of `GET /__admin/keys` with each key in full. */
  function keys(req: IncomingMessage): Reply {
    return (
      refusal(access, req) ?? {
        status: 200,
        body: JSON.stringify({
          keys: fake.keyring
            .list()
            .map((account) => ({ ...keyEntry(fake, account), key: account.key })),
        }),
      }
    );
  }

  function asset(exchange: Exchange, name: string): number {
    let found;
    try {
      found = assets(name);
    } catch (error) {
      // A read that failed has a code; the assets that are missing say so (assets.ts).
      const { code, message: why } = error as NodeJS.ErrnoException;
      const message =
        code === undefined
          ? why
          : `the home page's file ${printable(name)} cannot be read (${code})`;
      return sendReply(exchange, errorReply("internal_error", message));
    }
    if (found === undefined) {
      const message = `no file ${printable(name)} in the home page's files`;
      return sendReply(exchange, errorReply("not_found", message));
    }
    const headers = [
      "Content-Type",
      found.type,
      "ETag",
      found.etag,
      "Cache-Control",
      "no-cache",
      "Vary",
      "Accept-Encoding",
    ];
    if (exchange.req.headers["if-none-match"] === found.etag) return send(exchange, 304, headers);
    if (new Negotiator(exchange.req).encoding(["identity", "gzip"]) === "gzip") {
      return send(exchange, 200, [...headers, "Content-Encoding", "gzip"], found.gzipped());
    }
    return send(exchange, 200, headers, found.bytes);
  }

  function pets(req: IncomingMessage, query: string): Reply {
    if (mayReadPets(req)) return options.list(query);
    return errorReply(
      "forbidden",
      "the home page reads pets without a key for this machine only (loopback address and host); use GET /v1/pets with a key",
    );
  }

  function home(exchange: Exchange, query: string): number {
    const origin = fakeOrigin(exchange.req);
    const headers = ["Cache-Control", "no-store", "Vary", "Accept"];
    if (new Negotiator(exchange.req).mediaType(MEDIA_TYPES) !== "text/html") {
      return send(
        exchange,
        200,
        ["Content-Type", "application/json", ...headers],
        indexJson(origin),
      );
    }
    const status = new URLSearchParams(query).get("status") ?? "";
    const list = new URLSearchParams({ limit: String(PETS_SHOWN) });
    if (status !== "") list.set("status", status);
    const keyReply = keys(exchange.req);
    const keyList = parsed<{ keys: KeyEntry[] }>(keyReply);
    const html = pageHtml({
      origin,
      status,
      pets: parsed<Pet[]>(pets(exchange.req, list.toString()), parseJson),
      keys: typeof keyList === "string" ? keyList : keyList.keys,
      needsToken: keyReply.status === 401,
      health: typeof keyList === "string" ? undefined : health(fake),
      verdict: typeof keyList === "string" ? undefined : fake.verdict.verdict(),
      nowSeconds: fake.clock.now() / 1000,
    });
    const page = ["Content-Type", "text/html; charset=utf-8", "Content-Security-Policy", PAGE_CSP];
    return send(exchange, 200, [...page, ...headers], html);
  }

  return (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    limitHeaders: readonly string[] = [],
  ): number | undefined => {
    if (!isHomePath(path)) return undefined;
    const url = req.url ?? "";
    const query = url.includes("?") ? url.slice(url.indexOf("?") + 1) : "";
    const exchange: Exchange = { req, res, limitHeaders };
    if (req.method !== "GET" && req.method !== "HEAD") {
      return sendReply(exchange, methodNotAllowed(req.method, "GET, HEAD"));
    }
    if (path === "/") return home(exchange, query);
    if (path === `${HOME_PREFIX}openapi.json`)
      return sendReply(exchange, { status: 200, body: options.openApi(req) });
    if (path === `${HOME_PREFIX}pets`) return sendReply(exchange, pets(req, query));
    if (path === `${HOME_PREFIX}keys`) return sendReply(exchange, keys(req));
    return asset(exchange, path.slice(HOME_PREFIX.length));
  };
}
