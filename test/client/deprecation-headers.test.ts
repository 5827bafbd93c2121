import { describe, expect, it } from "vitest";
import { deprecationFromHeaders, successorFromLink } from "../../src/client/deprecation-headers.js";

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
