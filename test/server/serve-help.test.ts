/**
 * `serve --help` names every operation of the control plane, as its own OpenAPI
 * document lists them, so the help cannot fall behind the routes.
 */
import { execFileSync } from "node:child_process";
import { beforeAll, expect, it } from "vitest";
import { ADMIN_OPERATIONS } from "./admin/admin-http.js";
import { BIN, ensureBuilt } from "./cli-build.js";

let help: string;
beforeAll(async () => {
  await ensureBuilt();
  help = execFileSync(process.execPath, [BIN, "serve", "--help"], { encoding: "utf8" });
});

/** The control plane's paragraph of the help, split where one path's methods end. */
function controlPlaneParts(): string[] {
  const start = help.indexOf("Control plane");
  expect(start).toBeGreaterThan(-1);
  const paragraph = help.slice(start, help.indexOf("\n\n", start)).replace(/\s+/g, " ");
  return paragraph.split(/;\s*|\.\s+(?=[A-Z])/);
}

it("names every control-plane operation with its method", () => {
  const parts = controlPlaneParts();
  expect(ADMIN_OPERATIONS.length).toBeGreaterThan(8);
  for (const operation of ADMIN_OPERATIONS) {
    const [method, path] = operation.split(" ") as [string, string];
    const shown = path.replace("{key}", "<key>");
    const named = new RegExp(`${shown.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w/<.])`);
    const part = parts.find((text) => named.test(text));
    expect(part, operation).toBeDefined();
    expect(part, operation).toMatch(new RegExp(`\\b${method}\\b`));
  }
});

it("sends readers to docs/serve.md, where the control plane's fields are", () => {
  const paragraph = controlPlaneParts().join(" ");
  expect(paragraph).toMatch(/every field is in docs\/serve\.md/);
  expect(help).not.toContain("README");
});
