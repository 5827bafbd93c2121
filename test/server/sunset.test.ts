/** The sunset of GET /v1/pets/{petId}: 410 Gone from then on, the date moved by `sunset`. */
import { afterEach, describe, expect, it } from "vitest";
import { planServe } from "../../src/server/serve-options.js";
import { call, manualClock, startTestServer } from "./http.js";

const KEY = "sunset-key";
const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: Parameters<typeof startTestServer>[0]) {
  const server = await startTestServer({ keys: [`${KEY}:enterprise`], seed: 2, ...options });
  servers.push(server);
  return server;
}

describe("the sunset of GET /v1/pets/{petId}", () => {
  it("is the contract's 5 December 2030 by default, by the fake's clock", async () => {
    const clock = manualClock(Date.UTC(2030, 11, 4, 23, 59, 59));
    const { url } = await start({ clock });
    const before = await call(url, "/v1/pets/1", { key: KEY });
    expect(before.status).toBe(200);
    expect(before.headers.sunset).toBe("Thu, 05 Dec 2030 00:00:00 GMT");
    clock.advance(1000);
    const after = await call(url, "/v1/pets/1", { key: KEY });
    expect(after.status).toBe(410);
    expect(JSON.parse(after.text)).toEqual({
      code: "gone",
      message:
        "GET /v1/pets/{petId} was removed on 2030-12-05T00:00:00.000Z; use GET /v1/pets instead (filter it with status)",
      status: 410,
    });
    expect((await call(url, "/v1/pets", { key: KEY })).status).toBe(200);
  });

  it("moves with `sunset`, and the Sunset header and the document follow it", async () => {
    const { url } = await start({ sunset: "2026-03-01" });
    const gone = await call(url, "/v1/pets/2", { key: KEY });
    expect(gone.status).toBe(410);
    expect(gone.headers.sunset).toBe("Sun, 01 Mar 2026 00:00:00 GMT");
    expect(gone.headers.link).toContain("/v1/pets");
    const document = (await call(url, "/v1/openapi.json")).text;
    expect(document).toContain("removed on 2026-03-01T00:00:00.000Z");
    expect(document).toContain("Sun, 01 Mar 2026 00:00:00 GMT");
    expect(document).not.toContain("2030-12-05");
    const later = await start({ sunset: Date.UTC(2099, 0, 1) });
    expect((await call(later.url, "/v1/pets/2", { key: KEY })).headers.sunset).toBe(
      "Thu, 01 Jan 2099 00:00:00 GMT",
    );
  });

  it("is now with `now`", async () => {
    const { url } = await start({ sunset: "now" });
    expect((await call(url, "/v1/pets/1", { key: KEY })).status).toBe(410);
  });

  it("takes a date and time with its zone as an offset", async () => {
    const { url } = await start({ sunset: "2099-01-01T01:00:00+01:00" });
    expect((await call(url, "/v1/pets/1", { key: KEY })).headers.sunset).toBe(
      "Thu, 01 Jan 2099 00:00:00 GMT",
    );
  });

  it("refuses a date it cannot read, naming the option and the flag", async () => {
    for (const sunset of ["next tuesday", "2030-12-05T00:00:00", 1e20, new Date("?")]) {
      await expect(start({ sunset })).rejects.toThrow(
        "startServer: sunset must be a date (2030-12-05 or 2030-12-05T00:00:00Z), Unix milliseconds or now",
      );
    }
    const flags = {
      file: "pets.json",
      port: "0",
      host: "127.0.0.1",
      key: [KEY],
      sunset: "2030-13-45",
    };
    expect(() => planServe(flags, {})).toThrow("--sunset must be a date");
  });
});
