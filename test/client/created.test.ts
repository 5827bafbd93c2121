import { describe, expect, it } from "vitest";
import { idFromLocation } from "../../src/client/created.js";

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
