import { describe, expect, it } from "vitest";
import {
  completeRateLimit,
  deprecationFromHeaders,
  idFromLocation,
  rateLimitFromHeaders,
  successorFromLink,
} from "../../src/client/headers.js";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("rateLimitFromHeaders", () => {
  it.each<[string, Record<string, string>, ReturnType<typeof rateLimitFromHeaders>]>([
    ["no headers", {}, {}],
    [
      "the three X-RateLimit headers, reset in seconds becoming milliseconds",
      {
        "x-ratelimit-limit": "60",
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": "1795348860",
      },
      { limit: 60, remaining: 0, resetAt: 1795348860_000 },
    ],
    ["Retry-After in seconds", { "retry-after": "12" }, { retryAfterMs: 12_000 }],
    ["Retry-After with spaces", { "retry-after": " 3 " }, { retryAfterMs: 3_000 }],
    ["Retry-After 0", { "retry-after": "0" }, { retryAfterMs: 0 }],
    [
      "Retry-After as an HTTP date, relative to now",
      { "retry-after": "Sun, 22 Nov 2026 12:00:45 GMT" },
      { retryAfterMs: 45_000 },
    ],
    [
      "Retry-After as an HTTP date in the past is no wait, not a negative one",
      { "retry-after": "Sun, 22 Nov 2026 11:59:00 GMT" },
      { retryAfterMs: 0 },
    ],
    [
      "Retry-After in the obsolete RFC 850 date form",
      { "retry-after": "Sunday, 22-Nov-26 12:00:10 GMT" },
      { retryAfterMs: 10_000 },
    ],
    ["negative Retry-After is ignored", { "retry-after": "-5" }, {}],
    ["fractional Retry-After is ignored", { "retry-after": "1.5" }, {}],
    ["an ISO date is not an HTTP date", { "retry-after": "2026-11-22T12:01:00Z" }, {}],
    ["garbage Retry-After is ignored", { "retry-after": "soon" }, {}],
    [
      "malformed rate-limit values are ignored one by one",
      { "x-ratelimit-limit": "sixty", "x-ratelimit-remaining": "-1", "x-ratelimit-reset": "12" },
      { resetAt: 12_000 },
    ],
  ])("%s", (_name, headers, expected) => {
    expect(rateLimitFromHeaders(headers, NOW)).toEqual(expected);
  });
});

describe("completeRateLimit", () => {
  it("gives the rate limit only when all three headers were there", () => {
    expect(completeRateLimit({ limit: 60, remaining: 3, resetAt: 5000 })).toEqual({
      limit: 60,
      remaining: 3,
      resetAt: 5000,
    });
    expect(completeRateLimit({ limit: 60, remaining: 3 })).toBeUndefined();
    expect(completeRateLimit({ retryAfterMs: 1000 })).toBeUndefined();
  });
});

const URL_OF_REQUEST = "https://api.example.test/v1/pets/7";

describe("successorFromLink", () => {
  it.each<[string, string | undefined, string | undefined]>([
    ["no Link header", undefined, undefined],
    [
      "a relative target, made absolute",
      '</v1/pets>; rel="successor-version"',
      "https://api.example.test/v1/pets",
    ],
    [
      "an unquoted rel",
      "<https://new.example.test/v2/pets>; rel=successor-version",
      "https://new.example.test/v2/pets",
    ],
    [
      "rel among several relations",
      '</v1/pets>; rel="latest-version successor-version"',
      "https://api.example.test/v1/pets",
    ],
    [
      "rel in upper case",
      '</v1/pets>; REL="Successor-Version"',
      "https://api.example.test/v1/pets",
    ],
    [
      "the right one of several links",
      '</docs>; rel="help", </v1/pets?status=sold>; rel="successor-version"',
      "https://api.example.test/v1/pets?status=sold",
    ],
    ["only other relations", '</docs>; rel="help"', undefined],
    ["a link without rel", "</v1/pets>", undefined],
  ])("%s", (_name, link, expected) => {
    expect(successorFromLink(link, URL_OF_REQUEST)).toBe(expected);
  });
});

describe("deprecationFromHeaders", () => {
  it("reads the Sunset date and the successor", () => {
    expect(
      deprecationFromHeaders(
        {
          deprecation: "@1735689600",
          sunset: "Thu, 05 Dec 2030 00:00:00 GMT",
          link: '</v1/pets>; rel="successor-version"',
        },
        URL_OF_REQUEST,
      ),
    ).toEqual({
      sunset: new Date("2030-12-05T00:00:00Z"),
      replacement: "https://api.example.test/v1/pets",
    });
  });

  it("falls back to 5 December 2030 when Sunset is absent or unreadable", () => {
    const spec = new Date("2030-12-05T00:00:00Z");
    expect(deprecationFromHeaders({}, URL_OF_REQUEST)).toEqual({ sunset: spec });
    expect(deprecationFromHeaders({ sunset: "next year" }, URL_OF_REQUEST).sunset).toEqual(spec);
    expect(deprecationFromHeaders({ sunset: "2031" }, URL_OF_REQUEST).sunset).toEqual(spec);
  });
});

describe("idFromLocation", () => {
  it.each<[string | undefined, bigint | undefined]>([
    ["/v1/pets/42", 42n],
    ["https://api.example.test/v1/pets/9223372036854775807", 9223372036854775807n],
    ["pets/7/", 7n],
    ["/v1/pets/0", 0n],
    ["/v1/pets/9223372036854775808", undefined],
    ["/v1/pets/042", undefined],
    ["/v1/pets/-1", undefined],
    ["/v1/pets/42?x=1", 42n],
    ["/v1/owners/42", undefined],
    ["/v1/pets/", undefined],
    ["http://[::1", undefined],
    [undefined, undefined],
  ])("%j names %s", (location, id) => {
    expect(idFromLocation(location)).toBe(id);
  });
});
