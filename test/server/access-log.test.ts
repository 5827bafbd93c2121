import { describe, expect, it } from "vitest";
import { AccessLog } from "../../src/server/access-log.js";

function collectingLog(logsRequests = true) {
  const writes: string[] = [];
  return {
    log: new AccessLog({ write: (text: string) => writes.push(text) }, logsRequests),
    writes,
  };
}

describe("the access log", () => {
  it("writes one line per request: UTC time, method, path, status, duration", () => {
    const { log, writes } = collectingLog();
    log.request("GET", "/v1/pets", 200, 1.26);
    log.request("POST", "/v1/pets", 201, 12);
    expect(writes).toEqual([]);
    log.flush();
    expect(writes).toHaveLength(1);
    const lines = writes[0]!.split("\n");
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z GET \/v1\/pets 200 1\.3ms$/);
    expect(lines[1]).toMatch(/Z POST \/v1\/pets 201 12\.0ms$/);
    expect(lines[2]).toBe("");
  });

  it("keeps a client's path on one line and bounded", () => {
    const { log, writes } = collectingLog();
    log.request("GET", "/v1/pets/a\nb c", 400, 0);
    log.request("GET", "/" + "x".repeat(500), 404, 0);
    log.flush();
    const [quoted, long] = writes[0]!.split("\n");
    expect(quoted).toContain(' GET "/v1/pets/a\\nb c" 400 ');
    expect(long!.length).toBeLessThan(300);
    expect(long).toContain("x...");
  });

  it("writes a full buffer at once, without waiting", () => {
    const { log, writes } = collectingLog();
    for (let i = 0; i < 1000; i++) log.request("GET", "/v1/pets", 200, 0);
    expect(writes.length).toBeGreaterThan(0);
  });

  it("writes the buffered lines soon after, on its own", async () => {
    const { log, writes } = collectingLog();
    log.note("started");
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (writes.length > 0) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    expect(writes[0]).toMatch(/Z started\n$/);
  });
});
