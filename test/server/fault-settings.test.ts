/**
 * One schema per fault setting: the flag, the startServer option, the admin body
 * and the admin document all take the same field names, limits and words.
 */
import * as z from "zod/mini";
import { afterEach, describe, expect, it } from "vitest";
// The document's words for the settings, which its generator gives them.
import "../../scripts/openapi/admin.js";
import { ServerConfigError } from "../../src/server/config-error.js";
import { planServe, type ServeFlags } from "../../src/server/serve-options.js";
import { FaultSettings } from "../../src/server/faults.js";
import { admin, expectError } from "./admin/admin-http.js";
import { startTestServer } from "./http.js";

const KEY = "settings-key";
let server: Awaited<ReturnType<typeof startTestServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const FLAGS: ServeFlags = { file: "unused.json", port: "0", host: "127.0.0.1", key: [KEY] };

/** The message of each way in: the flag's (its own name), the option's and the admin body's. */
async function messages(flag: Partial<ServeFlags>, faults: Record<string, unknown>) {
  let fromFlag = "";
  try {
    planServe({ ...FLAGS, ...flag }, {});
  } catch (error) {
    expect(error).toBeInstanceOf(ServerConfigError);
    fromFlag = (error as Error).message;
  }
  const option = await startTestServer({ keys: [KEY], faults }).then(
    async (accepted) => {
      await accepted.close();
      return "";
    },
    (error: unknown) => (error as Error).message,
  );
  server = await startTestServer({ keys: [KEY] });
  const put = await admin(server.url, "/faults", { method: "PUT", json: faults });
  const body = expectError(put, 400, "invalid_admin_request");
  return { fromFlag, option, body };
}

/** "must be ..." without the value given. */
const ruleIn = (message: string) => /must be [^;]*/.exec(message)?.[0];

describe("a bad fault setting", () => {
  it.each([
    [{ failRate: "2" }, { failRate: 2 }],
    [{ failRate: "0.5", failMode: "slow" }, { failMode: "slow" }],
    [{ faultSeed: "4294967296" }, { seed: 4294967296 }],
    [{ latency: "5-700000" }, { latencyMs: { min: 5, max: 700_000 } }],
  ])("gets the same words from the option and the admin body: %j", async (flag, faults) => {
    const { fromFlag, option, body } = await messages(flag, faults);
    expect(option).toBe(`startServer: faults.${body}`);
    expect(fromFlag).not.toBe("");
    expect(ruleIn(body)).toBeDefined();
  });

  it.each([
    [{ failRate: "2" }, { failRate: 2 }],
    [{ failRate: "0.5", failMode: "slow" }, { failMode: "slow" }],
  ])("and from the flag, whose value is the same: %j", async (flag, faults) => {
    const { fromFlag, body } = await messages(flag, faults);
    expect(ruleIn(fromFlag)).toBe(ruleIn(body));
  });

  it.each([
    [{ faultSeed: "4294967296" }, { seed: 4294967296 }, "an integer from 0 to 4294967295"],
    [{ latency: "5-700000" }, { latencyMs: { min: 5, max: 700_000 } }, "600000"],
  ])(
    "and from the flag, in its own syntax, with the same limit: %j",
    async (flag, faults, limit) => {
      const { fromFlag, body } = await messages(flag, faults);
      expect(fromFlag).toContain(limit);
      expect(body).toContain(limit);
    },
  );
});

describe("one field name per setting", () => {
  it("the flag's value is the option's and the admin body's, and GET /__admin/faults shows it", async () => {
    const flags = { latency: "50-300", failRate: "0.25", failMode: "reset", faultSeed: "9" };
    const faults = planServe({ ...FLAGS, ...flags }, {}).options.faults;
    const settings = {
      latencyMs: { min: 50, max: 300 },
      failRate: 0.25,
      failMode: "reset",
      seed: 9,
    };
    expect(faults).toEqual(settings);
    server = await startTestServer({ keys: [KEY], faults: settings as FaultSettings });
    expect((await admin(server.url, "/faults")).body).toEqual(settings);
    const put = await admin(server.url, "/faults", { method: "PUT", json: settings });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(settings);
    expect(Object.keys(put.body).sort()).toEqual(Object.keys(FaultSettings.def.in.shape).sort());
  });

  it("the library still takes latency: {minMs, maxMs}, shown as latencyMs", async () => {
    server = await startTestServer({ keys: [KEY], faults: { latency: { minMs: 3, maxMs: 4 } } });
    expect((await admin(server.url, "/faults")).body.latencyMs).toEqual({ min: 3, max: 4 });
    server.setFaults({ latencyMs: { min: 7, max: 8 } });
    expect((await admin(server.url, "/faults")).body.latencyMs).toEqual({ min: 7, max: 8 });
  });
});

describe("the control plane's document", () => {
  it("describes the faults with the schema that checks them", async () => {
    server = await startTestServer({ keys: [KEY] });
    const document = (await admin(server.url, "/openapi.json")).body as {
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    const { $schema: _, ...generated } = z.toJSONSchema(FaultSettings, {
      target: "draft-2020-12",
      io: "input",
    });
    const update = document.components.schemas.FaultsUpdate!;
    expect(update.description).toMatch(/^Replaces every setting/);
    expect(update).toEqual(generated);
    expect(Object.keys(update.properties as object)).toEqual(
      Object.keys(FaultSettings.def.in.shape),
    );
    const answer = document.components.schemas.Faults!;
    expect(answer.required).toEqual(Object.keys(FaultSettings.def.in.shape));
  });
});
