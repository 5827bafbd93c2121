/**
 * The deprecation of `GET /pets/{petId}`, stated once: the fake sends it as
 * headers, the OpenAPI document describes it, and the client falls back on the
 * sunset when an answer carries no readable `Sunset`.
 */

/** When the operation was deprecated (RFC 9745 `Deprecation: @<seconds>`): 1 January 2025, 00:00 UTC. */
const DEPRECATED_AT = 1_735_689_600;

/** When it is removed (the spec: 5 December 2030), as ISO 8601 and as the RFC 8594 header. */
export const SUNSET_DATE = "2030-12-05T00:00:00Z";

/** The operation that replaces it (RFC 8288 `rel="successor-version"`). */
export const SUCCESSOR_PATH = "/v1/pets";

/**
 * The headers every answer of the operation carries, as the fake sends them and the
 * document shows them. A function, so that the CLI (which needs only SUNSET_DATE)
 * does not build them at start-up.
 */
export function deprecationHeaderValues(sunsetMs = Date.parse(SUNSET_DATE)) {
  return {
    Deprecation: `@${DEPRECATED_AT}`,
    Sunset: new Date(sunsetMs).toUTCString(),
    Link: `<${SUCCESSOR_PATH}>; rel="successor-version"`,
  };
}
