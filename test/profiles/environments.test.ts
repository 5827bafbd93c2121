import { describe, expect, it } from "vitest";
import { isEnvironmentName, parseBaseUrl } from "../../src/profiles/environments.js";

describe("parseBaseUrl", () => {
  it.each([
    ["https://api.petstore.example/v1", "https://api.petstore.example/v1"],
    ["https://api.petstore.example/v1/", "https://api.petstore.example/v1"],
    ["http://127.0.0.1:4010/v1//", "http://127.0.0.1:4010/v1"],
    ["HTTP://LOCALHOST:4010", "http://localhost:4010"],
  ])("accepts %s as %s", (text, url) => {
    expect(parseBaseUrl(text)).toEqual({ ok: true, url });
  });

  it.each([
    [
      "api.petstore.example/v1",
      'must be an absolute http:// or https:// URL; got "api.petstore.example/v1"',
    ],
    [
      "ftp://api.petstore.example/v1",
      'must use http:// or https://; got "ftp://api.petstore.example/v1"',
    ],
    [
      "https://api.petstore.example/v1?x=1",
      'must not have a query or fragment; got "https://api.petstore.example/v1?x=1"',
    ],
    ["https://me:secret@api.petstore.example/v1", "must not contain a user name or password"],
  ])("refuses %s", (text, problem) => {
    expect(parseBaseUrl(text)).toEqual({ ok: false, problem });
  });

  it("never repeats credentials in its problem", () => {
    const result = parseBaseUrl("ftp://me:secret@host/");
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain("secret");
  });
});

describe("isEnvironmentName", () => {
  it("knows production and staging only", () => {
    expect(["production", "staging", "prod", ""].map(isEnvironmentName)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});
