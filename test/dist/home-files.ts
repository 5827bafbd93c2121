/** Checks that a running fake serves the home page and every one of its files as built. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { HOME_ASSETS } from "../../src/server/home/assets.js";
import { REPO_ROOT } from "../server/cli-build.js";

/** `baseUrl`: the fake's `.../v1`. */
export async function expectHomeServed(baseUrl: string): Promise<void> {
  const origin = baseUrl.replace(/\/v1$/, "");
  const page = await fetch(`${origin}/`, { headers: { accept: "text/html" } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(`<code id="base-url">${baseUrl}</code>`);
  for (const name of Object.keys(HOME_ASSETS)) {
    const answer = await fetch(`${origin}/__home/${name}`, {
      headers: { "accept-encoding": "identity" },
    });
    expect(answer.status, name).toBe(200);
    const served = Buffer.from(await answer.arrayBuffer());
    expect(served.equals(readFileSync(join(REPO_ROOT, "dist", "home", name))), name).toBe(true);
  }
}
