/**
 * The home page in a real browser (Debian's chromium): it shows the seeded pets
 * and filters them, escapes a pet's name, shows a request made meanwhile by
 * someone else, changes a fault setting through the control plane, renders the
 * API reference, and fetches nothing from anywhere but the fake; 400 and 1280 px
 * wide, nothing overflows sideways and each key can be copied. Screenshots: <temp>/home.png
 * (and /tmp/petstore-home.png), <temp>/home-400.png, <temp>/home-1280.png.
 *
 * The fake is createApp on one origin, its control plane open as on loopback.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/app.js";
import { appOptions } from "../server/app-options.js";
import { KeyInput } from "../../src/server/keys.js";
import { createMemoryStore } from "../../src/server/store/memory.js";
import { demoPets } from "../../src/server/demo-pets.js";
import { launchChromium } from "./chromium.js";
import { HANG_MS } from "../limits.js";

const KEY = "psk_home0123456789abcdef";
/** Short keys, which redaction showed as the same "…". */
const SHORT_KEYS = ["dev-key-1", "dev-key-2"];
const PETS = demoPets(14);
/** A name that would run a script, were it put in the page as HTML. */
const NEWCOMER =
  '<script>window.escaped = false</script><img src=x onerror="window.escaped = false">';

let work: string;
let server: Server;
let app: ReturnType<typeof createApp>;
let origin: string;
let browser: Browser;
let page: Page;
const offOrigin: string[] = [];
const problems: string[] = [];

function listen(handler: RequestListener): Promise<Server> {
  return new Promise((resolve) => {
    const listening = createServer(handler).listen(0, "127.0.0.1", () => resolve(listening));
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "petstore-home-"));
  const store = createMemoryStore(PETS);
  const keys = [KeyInput.parse(`${KEY}:pro`), ...SHORT_KEYS.map((key) => KeyInput.parse(key))];
  // On loopback, as `petstore serve` runs it: the control plane (and the keys in full) open.
  app = createApp(store, appOptions({ keys, host: "127.0.0.1" }));
  server = await listen(app);
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  // Nothing may leave the fake's origin: record and refuse anything else.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith("data:")) return route.continue();
    offOrigin.push(url);
    return route.abort();
  });
  page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(`${origin}/`);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  app?.close();
  rmSync(work, { recursive: true, force: true });
});

const rowsOf = (table: string) => page.locator(`#${table} tbody tr`);

describe("the home page in a browser", () => {
  it("shows the base URL, the two CLI lines and each key in full, with its plan", async () => {
    await expect.poll(() => page.textContent("#base-url")).toBe(`${origin}/v1`);
    const lines = (await page.textContent("#cli-lines"))!.split("\n");
    expect(lines).toEqual([
      `export PETSTORE_BASE_URL='${origin}/v1'`,
      "export PETSTORE_API_KEY='<your key>'",
    ]);
    await expect
      .poll(() => page.locator("#keys td.key code").allTextContents(), { timeout: HANG_MS / 2 })
      .toEqual([KEY, ...SHORT_KEYS]);
    const keyRow = rowsOf("keys").first();
    expect(await keyRow.locator("td").nth(1).textContent()).toBe("pro");
    expect(await keyRow.locator("td").nth(2).textContent()).toBe("300");
  });

  it("shows the seeded pets and filters them by status", async () => {
    await expect.poll(() => rowsOf("pets").count()).toBe(PETS.length);
    const names = await page.locator("#pets tbody td.name").allTextContents();
    expect(names).toEqual(PETS.map((pet) => pet.name));
    await page.click('#pet-filters a[href="/?status=sold"]');
    const sold = PETS.filter((pet) => pet.status === "sold");
    expect(sold.length).toBeGreaterThan(0);
    expect(sold.length).toBeLessThan(PETS.length);
    await expect
      .poll(() =>
        page.locator("#pets tbody tr").evaluateAll((rows) => rows.map((r) => r.dataset.id)),
      )
      .toEqual(sold.map((pet) => String(pet.id)));
    expect(page.url()).toBe(`${origin}/?status=sold`);
    expect(await page.innerText('#pet-filters [aria-current="true"]')).toBe("Sold");
    await page.click('#pet-filters a[href="/"]');
    await expect.poll(() => rowsOf("pets").count()).toBe(PETS.length);
  });

  it("shows a request made meanwhile by another client, live", async () => {
    const answer = await fetch(`${origin}/v1/pets?status=pending&limit=5`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(answer.status).toBe(200);
    const row = page.locator("#requests tbody tr", { hasText: "/v1/pets?status=pending&limit=5" });
    await expect.poll(() => row.count(), { timeout: 10_000 }).toBe(1);
    expect(await row.locator("td").nth(2).textContent()).toBe("200");
    expect(await row.locator("td").nth(4).textContent()).toBe("pro");
    // A created pet shows up in the pet list without a reload, its name as text.
    const created = await fetch(`${origin}/v1/pets`, {
      method: "POST",
      headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: NEWCOMER, categoryId: 2, status: "available" }),
    });
    expect(created.status).toBe(201);
    await expect
      .poll(() => page.locator("#pets tbody td.name").allTextContents(), { timeout: 10_000 })
      .toContain(NEWCOMER);
    expect(await page.evaluate("window.escaped")).toBeUndefined();
  });

  it("changes a fault setting through the control plane", async () => {
    await page.fill('#faults input[name="latencyMin"]', "0");
    await page.fill('#faults input[name="latencyMax"]', "0");
    await page.fill('#faults input[name="failRate"]', "1");
    await page.selectOption('#faults select[name="failMode"]', "503");
    await page.click('#faults button[type="submit"]');
    await expect.poll(() => page.textContent("#faults-status")).toMatch(/^applied: /);
    const settings = (await (await fetch(`${origin}/__admin/faults`)).json()) as {
      failRate: number;
      failMode: string;
    };
    expect(settings).toMatchObject({ failRate: 1, failMode: "503" });
    expect(await page.textContent("#faults-meta")).toBe("100 % fail (503)");
    // The setting takes effect on the API.
    const failed = await fetch(`${origin}/v1/pets`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(failed.status).toBe(503);
    await page.click("#faults-off");
    await expect.poll(() => page.textContent("#faults-meta")).toBe("off");
    expect(await (await fetch(`${origin}/__admin/faults`)).json()).toMatchObject({ failRate: 0 });
  });

  it("renders the API reference of /v1/openapi.json with the fake as its server", async () => {
    const paths = () =>
      page
        .locator("#reference [data-path]")
        .evaluateAll((found) => found.map((e) => e.dataset.path));
    await expect
      .poll(paths, { timeout: 15_000 })
      .toEqual(expect.arrayContaining(["/pets", "/pets/{petId}"]));
    expect(await page.locator("#reference .servers select option").first().textContent()).toContain(
      `${origin}/v1`,
    );
    // Opened, an operation shows its parameters and highlighted examples (under the page's CSP).
    await page.locator('#reference .opblock-summary:has([data-path="/pets"])').first().click();
    const opened = page.locator("#reference .opblock.is-open");
    await expect
      .poll(() => opened.locator(".parameters-container").textContent())
      .toContain("status");
    await expect.poll(() => opened.locator(".microlight, pre.example").count()).toBeGreaterThan(0);
    await page.locator('#reference .opblock-summary:has([data-path="/pets"])').first().click();
    await expect.poll(() => opened.count()).toBe(0);
  });

  it("loads nothing from outside the fake, and logs no error", async () => {
    await page.evaluate("window.scrollTo(0, 0)");
    const shot = join(work, "home.png");
    await page.screenshot({ path: shot, fullPage: true });
    copyFileSync(shot, "/tmp/petstore-home.png");
    expect(offOrigin).toEqual([]);
    expect(problems).toEqual([]);
    // The page's own reads leave no line in the journal it shows: only the test's requests.
    const journal = (await (await fetch(`${origin}/__admin/requests`)).json()) as {
      requests: { method: string; path: string }[];
    };
    expect(journal.requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      "GET /v1/pets",
      "POST /v1/pets",
      "GET /v1/pets",
    ]);
  });

  it("reads the journal a page at a time, from 200 requests before the newest, never whole", async () => {
    const headers = { Authorization: `Bearer ${KEY}` };
    for (let i = 1; i <= 230; i++) await fetch(`${origin}/v1/pets/${1000 + i}`, { headers });
    const { lastId } = (await (await fetch(`${origin}/__admin/requests?limit=0`)).json()) as {
      lastId: number;
    };
    const fresh = await page.context().newPage();
    const reads: string[] = [];
    fresh.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === "/__admin/requests") reads.push(url.search);
    });
    await fresh.goto(`${origin}/`);
    const rows = fresh.locator("#requests tbody tr");
    await expect.poll(() => rows.count(), { timeout: HANG_MS / 2 }).toBe(200);
    expect(await rows.first().textContent()).toContain("/v1/pets/1230");
    expect(reads.slice(0, 2)).toEqual(["?limit=0", `?after=${lastId - 200}`]);
    expect(reads.every((search) => search.startsWith("?after=") || search === "?limit=0")).toBe(
      true,
    );
    await fresh.close();
  });
});

describe("the home page of a fake with an --admin-token", () => {
  const TOKEN = "home-admin-token-0123456789";
  let guarded: ReturnType<typeof createApp>;
  let guardedServer: Server;
  let tokenPage: Page;

  beforeAll(async () => {
    const keys = [KeyInput.parse(`${KEY}:pro`)];
    guarded = createApp(
      createMemoryStore(PETS),
      appOptions({
        keys,
        host: "127.0.0.1",
        adminToken: TOKEN,
      }),
    );
    guardedServer = await listen(guarded);
    const address = guardedServer.address() as AddressInfo;
    tokenPage = await browser.newPage();
    await tokenPage.goto(`http://127.0.0.1:${address.port}/`);
  });

  afterAll(async () => {
    await tokenPage.context().close();
    await new Promise((resolve) => guardedServer?.close(resolve));
    guarded?.close();
  });

  it("asks for the token, then shows the keys, the faults and the live journal with it", async () => {
    expect(await tokenPage.locator("#keys td.key").count()).toBe(0);
    await expect.poll(() => tokenPage.textContent("#requests-live")).toBe("paused");
    await tokenPage.fill("#token input", TOKEN);
    await tokenPage.click("#token button");
    await expect
      .poll(() => tokenPage.locator("#keys td.key code").allTextContents())
      .toEqual([KEY]);
    expect(await tokenPage.locator("#notice").isHidden()).toBe(true);
    await expect.poll(() => tokenPage.textContent("#faults-meta")).toBe("off");
    await expect.poll(() => tokenPage.textContent("#requests-live")).toBe("live");
    // Kept for the tab: a reload shows the keys again without asking.
    await tokenPage.reload();
    await expect
      .poll(() => tokenPage.locator("#keys td.key code").allTextContents())
      .toEqual([KEY]);
  });
});

/**
 * What overflows sideways in the page, run in the browser (as text: the tests
 * are compiled without the DOM's types): an element whose visible part (clipped
 * by its ancestors' overflow) reaches past the window or its card, and a box
 * that scrolls sideways. An ellipsis (overflow hidden) is not one.
 */
const SIDEWAYS_OVERFLOW = `(() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  const nameOf = (element) =>
    (element.closest("[id]")?.id ?? "page") + " > " + element.tagName.toLowerCase() +
    (typeof element.className === "string" && element.className.trim() !== ""
      ? "." + element.className.trim().split(/\\s+/).join(".")
      : "");
  if (document.documentElement.scrollWidth > width) {
    found.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + width);
  }
  for (const element of document.querySelectorAll("body *")) {
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    if (box.width === 0 || style.visibility === "hidden") continue;
    if (/auto|scroll/.test(style.overflowX) && element.scrollWidth > element.clientWidth + 1) {
      found.push(nameOf(element) + " scrolls sideways: " + element.scrollWidth + " > " + element.clientWidth);
    }
    let right = box.right;
    let left = box.left;
    for (let up = element.parentElement; up; up = up.parentElement) {
      if (getComputedStyle(up).overflowX === "visible") continue;
      const clip = up.getBoundingClientRect();
      right = Math.min(right, clip.right);
      left = Math.max(left, clip.left);
    }
    if (right <= left) continue;
    const card = element.closest(".card")?.getBoundingClientRect();
    const limit = Math.min(width, card?.right ?? width);
    if (right > limit + 0.5) found.push(nameOf(element) + " reaches " + Math.round(right) + " > " + limit);
  }
  return found;
})()`;

describe.each([400, 1280])("the home page %i px wide", (width) => {
  let narrow: Page;

  beforeAll(async () => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    narrow = await context.newPage();
    await narrow.goto(`${origin}/`);
    await narrow.locator("#keys tbody tr").nth(SHORT_KEYS.length).waitFor();
    await narrow.locator("#pets tbody td.name").first().waitFor();
    // A request in the journal, so its table has a row to lay out.
    await fetch(`${origin}/v1/pets?status=available&limit=3`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    await narrow.locator("#requests tbody td.time").first().waitFor();
    await narrow.screenshot({ path: join(work, `home-${width}.png`), fullPage: true });
  });

  afterAll(() => narrow.context().close());

  it("has nothing that overflows sideways: the keys, the fault inputs, the CLI lines", async () => {
    expect(await narrow.evaluate<string[]>(SIDEWAYS_OVERFLOW)).toEqual([]);
  });

  it("keeps the Copy button off the export lines", async () => {
    const lines = (await narrow.locator("#cli-lines").boundingBox())!;
    const button = (await narrow.locator("#cli-lines + button[data-copy]").boundingBox())!;
    const apart =
      button.x >= lines.x + lines.width ||
      button.x + button.width <= lines.x ||
      button.y >= lines.y + lines.height ||
      button.y + button.height <= lines.y;
    expect(apart).toBe(true);
  });

  it("copies each key, in full, with its own button", async () => {
    const copied: string[] = [];
    for (const row of await narrow.locator("#keys tbody tr").all()) {
      await row.locator("button[data-copy]").click({ timeout: HANG_MS / 2 });
      copied.push(await narrow.evaluate<string>("navigator.clipboard.readText()"));
    }
    expect(copied).toEqual([KEY, ...SHORT_KEYS]);
  });
});
