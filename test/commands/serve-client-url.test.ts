import { describe, expect, it } from "vitest";
import { clientBaseUrl, listensEverywhere } from "../../src/commands/serve.js";
import { isLoopbackHost } from "../../src/client/key-safety.js";

describe("the base URL serve prints", () => {
  it.each([
    ["0.0.0.0", "http://127.0.0.1:4010/v1"],
    ["::", "http://[::1]:4010/v1"],
    ["::0", "http://[::1]:4010/v1"],
    ["0:0:0:0:0:0:0:0", "http://[::1]:4010/v1"],
    ["127.0.0.1", "http://127.0.0.1:4010/v1"],
    ["::1", "http://[::1]:4010/v1"],
    ["192.168.1.20", "http://192.168.1.20:4010/v1"],
    ["fe80::1", "http://[fe80::1]:4010/v1"],
    ["localhost", "http://localhost:4010/v1"],
  ])("for --host %s is %s", (host, url) => {
    expect(clientBaseUrl(host, 4010)).toBe(url);
  });

  it("is one the CLI sends a key to over plain http for every wildcard address", () => {
    for (const host of ["0.0.0.0", "::", "::0", "0:0:0:0:0:0:0:0"]) {
      expect(listensEverywhere(host)).toBe(true);
      expect(isLoopbackHost(new URL(clientBaseUrl(host, 1)).hostname)).toBe(true);
    }
    expect(listensEverywhere("0.0.0.1")).toBe(false);
    expect(listensEverywhere("::1")).toBe(false);
  });
});
