/**
 * What the warning of `get` needs of an answer's deprecation notice: `Sunset`
 * (RFC 8594) and `Link: <...>; rel="successor-version"` (RFC 5829). The spec
 * marks GET /pets/{petId} deprecated with removal on 5 December 2030, so that
 * date stands in when the service sends no (readable) Sunset. `Deprecation`
 * (RFC 9745, when it was deprecated) is not read: nothing shows it.
 */
import { SUNSET_DATE } from "../schema/deprecation.js";
import { parseHttpDate } from "./http-date.js";
import type { Deprecation } from "./types.js";

function httpDate(value: string | undefined): Date | undefined {
  const at = parseHttpDate(value);
  return at === undefined ? undefined : new Date(at);
}

/** The target of the first link whose rel includes successor-version, made absolute. */
export function successorFromLink(
  link: string | undefined,
  requestUrl: string,
): string | undefined {
  if (link === undefined) return undefined;
  for (const [, target, params] of link.matchAll(/<([^>]*)>([^,]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;]+))/i.exec(params ?? "");
    const relations = (rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/);
    if (!relations.includes("successor-version")) continue;
    return URL.canParse(target ?? "", requestUrl)
      ? new URL(target ?? "", requestUrl).href
      : undefined;
  }
  return undefined;
}

/** Header names lower-cased. */
export function deprecationFromHeaders(
  headers: Record<string, string>,
  requestUrl: string,
): Deprecation {
  const deprecation: Deprecation = {
    sunset: httpDate(headers.sunset) ?? new Date(SUNSET_DATE),
  };
  const replacement = successorFromLink(headers.link, requestUrl);
  if (replacement !== undefined) deprecation.replacement = replacement;
  return deprecation;
}
