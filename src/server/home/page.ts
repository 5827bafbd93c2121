/**
 * What `GET /` answers: the home page's HTML for a browser, a JSON index of the
 * fake's links for everything else. Both are built per request from the origin
 * the client used, so the links and the CLI lines name the address it reached.
 * The page is rendered here whole (keys, pets, status line); its script
 * (home.js) keeps the request journal and the faults form live and renders the
 * parts marked `data-live` anew by reading the page again. Every text that is
 * not the page's own goes through htmlEscape: pet names are anyone's input.
 */
import { htmlEscape } from "escape-goat";
import { PET_STATUSES, type Pet } from "../../schema/pet.js";
import type { KeyEntry } from "../admin/routes.js";
import { exportLines } from "../serve-options.js";
import type { Verdict } from "../verdict.js";

declare const PETSTORE_VERSION: string;

const VERSION = typeof PETSTORE_VERSION === "string" ? PETSTORE_VERSION : "0.0.0-dev";
export const HOME_PREFIX = "/__home/";
/** The whole-number limit the fake gives an unlimited key. */
const UNLIMITED = 2147483647;
/** Pets shown: the first page of `GET /v1/pets` at its largest. */
export const PETS_SHOWN = 100;

/** What the page shows; a string in place of a list says why it is not shown. */
export interface PageView {
  origin: string;
  /** The pets' status filter; "" for all. */
  status: string;
  /** Parsed with parseJson: int64s as bigints. */
  pets: Pet[] | string;
  keys: KeyEntry[] | string;
  /** The control plane asks for its --admin-token. */
  needsToken: boolean;
  /** `GET /__admin/health`'s body. */
  health?: { status: string; pets: number; uptimeSeconds: number };
  /** The fake's time, Unix seconds. */
  nowSeconds: number;
  /** `GET /__admin/verdict`'s body, for whoever may use the control plane. */
  verdict?: Verdict;
}

/** Items of the verdict shown; the rest are at GET /__admin/verdict. */
const VERDICT_SHOWN = 20;

export function indexJson(origin: string): string {
  const index = {
    name: "petstore serve",
    description:
      "A local fake of the Pet Store adoption service. The API is under /v1 and needs a key; " +
      "the control plane is under /__admin; open this URL in a browser for the home page.",
    version: VERSION,
    baseUrl: `${origin}/v1`,
    links: {
      self: `${origin}/`,
      api: `${origin}/v1`,
      pets: `${origin}/v1/pets`,
      openapi: `${origin}/v1/openapi.json`,
      adminHealth: `${origin}/__admin/health`,
      adminReset: `${origin}/__admin/reset`,
      adminRequests: `${origin}/__admin/requests`,
      adminClock: `${origin}/__admin/clock`,
      adminFaults: `${origin}/__admin/faults`,
      adminKeys: `${origin}/__admin/keys`,
      adminOpenapi: `${origin}/__admin/openapi.json`,
    },
  };
  return JSON.stringify(index, null, 2) + "\n";
}

const ICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0f766e"/>' +
      '<g fill="#fff"><circle cx="10" cy="12" r="3"/><circle cx="16" cy="9" r="3"/><circle cx="22" cy="12" r="3"/>' +
      '<ellipse cx="16" cy="20" rx="6" ry="5"/></g></svg>',
  );

/**
 * The page's Content-Security-Policy: everything from this origin, nothing from anywhere
 * else. Scripts, styles and connections fall back to default-src.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

function count(value: number): string {
  return value >= UNLIMITED ? "unlimited" : value.toLocaleString("en");
}

function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** A table of `rows` under the heading cells `head`. */
function table(head: string, rows: string): string {
  return `<table>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${rows}\n</tbody>\n</table>`;
}

/** One row saying why a table has no rows. */
function emptyRow(columns: number, why: string): string {
  return `<tr><td class="empty" colspan="${columns}">${htmlEscape(why)}</td></tr>`;
}

/** The control plane's health; nothing when it refuses (the notice says why). */
function statusLine({ health }: PageView): string {
  if (health === undefined) return `<span id="health" data-live></span>`;
  const pets = `${count(health.pets)} pet${health.pets === 1 ? "" : "s"}`;
  const text = `${health.status} · ${pets} · up ${duration(health.uptimeSeconds)}`;
  return `<span id="health" data-live>${htmlEscape(text)}</span>`;
}

/** The control plane's refusal, said once at the top; a 401 asks for the --admin-token. */
function notice({ keys, needsToken }: PageView): string {
  if (typeof keys !== "string") return `<article id="notice" data-live hidden></article>`;
  const said = `The control plane (/__admin) answered: ${htmlEscape(keys)}`;
  if (!needsToken) return `<article id="notice" data-live>${said}</article>`;
  return `<article id="notice" data-live><form id="token">
  <label>${said}. Give the token of <code>--admin-token</code>:
  <input type="password" name="token" placeholder="admin token"></label>
  <button type="submit">Use token</button>
</form></article>`;
}

function keyRow(entry: KeyEntry, nowSeconds: number): string {
  const meter =
    entry.limit >= UNLIMITED
      ? ""
      : ` <progress value="${entry.remaining}" max="${entry.limit}"></progress>`;
  return `<tr>
  <td class="key"><code>${htmlEscape(entry.key)}</code> <button type="button" data-copy class="outline">Copy</button></td>
  <td data-label="Plan"><span class="pill plan-${htmlEscape(entry.plan)}">${htmlEscape(entry.plan)}</span></td>
  <td class="num" data-label="Limit">${count(entry.limit)}</td>
  <td class="num" data-label="Remaining">${count(entry.remaining)}${meter}</td>
  <td data-label="Resets">in ${duration(entry.reset - nowSeconds)}</td>
</tr>`;
}

function keysCard({ keys, nowSeconds }: PageView): string {
  const rows =
    typeof keys === "string"
      ? emptyRow(5, "shown to whoever may use the control plane")
      : keys.map((entry) => keyRow(entry, nowSeconds)).join("\n");
  const meta = typeof keys === "string" ? "" : `${keys.length} key${keys.length === 1 ? "" : "s"}`;
  return `<article id="keys" data-live>
<header><h2>Keys</h2><small>${meta}</small></header>
${table(`<th>Key</th><th>Plan</th><th class="num">Limit</th><th class="num">Remaining</th><th>Resets</th>`, rows)}
<small>Limit, remaining and reset are those of the window that binds first (the minute or the day), as the <code>X-RateLimit-*</code> headers give them.</small>
</article>`;
}

/** The verdict on the app under test: each item as a line, violations first. */
function verdictCard({ verdict }: PageView): string {
  if (verdict === undefined) return `<article id="verdict" data-live hidden></article>`;
  const items = [
    ...verdict.violations.map((item) => ["bad", item] as const),
    ...verdict.warnings.map((item) => ["warn", item] as const),
  ];
  const lines = items.slice(0, VERDICT_SHOWN).map(([tone, item]) => {
    const times = item.count === undefined ? "" : ` ×${item.count}`;
    const { method, path, time } = item.request;
    return `<li><span class="pill ${tone}">${item.rule}${times}</span> <code>${htmlEscape(`${method} ${path}`)}</code> <small>${time}</small><br>${htmlEscape(item.message)}</li>`;
  });
  const more = items.length - lines.length + verdict.omitted;
  if (more > 0)
    lines.push(`<li>and ${more} more: <a href="/__admin/verdict">/__admin/verdict</a></li>`);
  const tone = verdict.pass ? "ok" : "bad";
  const violations = verdict.violations.length + verdict.omitted;
  const said = verdict.pass ? "pass" : `${violations} violation${violations === 1 ? "" : "s"}`;
  return `<article id="verdict" data-live>
<header><h2>Verdict</h2><span class="pill ${tone}">${said}</span><small>the app under test, since the start or the last reset (<code>petstore verdict</code>)</small></header>
<ul>${lines.join("\n") || "<li>nothing to say yet</li>"}</ul>
</article>`;
}

const FAULTS_CARD = `<article>
<header><h2>Faults</h2><small id="faults-meta"></small></header>
<form id="faults">
<div class="grid">
  <label>Latency min <small>ms</small><input name="latencyMin" type="number" min="0" step="1" inputmode="numeric"></label>
  <label>Latency max <small>ms</small><input name="latencyMax" type="number" min="0" step="1" inputmode="numeric"></label>
</div>
<div class="grid">
  <label>Fail rate <small>0 to 1</small><input name="failRate" type="number" min="0" max="1" step="any" inputmode="decimal"></label>
  <label>Fail mode<select name="failMode"><option value="503">503 fault_injected</option><option value="reset">reset before processing</option><option value="reset-after">reset after processing</option></select></label>
</div>
<button type="submit">Apply</button> <button type="button" id="faults-off" class="secondary outline">Turn off</button>
<small id="faults-status" role="status"></small>
</form>
</article>`;

function petRow(pet: Pet): string {
  const status = pet.status ?? "—";
  return `<tr data-id="${pet.id}"><td class="num">${pet.id}</td><td class="name">${htmlEscape(pet.name)}</td><td class="num">${pet.categoryId}</td><td><span class="pill ${htmlEscape(status)}">${htmlEscape(status)}</span></td></tr>`;
}

function petsCard({ pets, status }: PageView): string {
  const which = status === "" ? "" : `${status} `;
  const filters = ["", ...PET_STATUSES].map((value) => {
    const current = value === status ? ` aria-current="true"` : ` class="secondary outline"`;
    const href = value === "" ? "/" : `/?status=${value}`;
    return `<a href="${href}" role="button"${current}>${value || "all"}</a>`;
  });
  let rows = typeof pets === "string" ? emptyRow(4, pets) : pets.map(petRow).join("\n");
  let meta = "";
  if (typeof pets !== "string") {
    if (pets.length === 0) rows = emptyRow(4, `no ${which}pets`);
    meta = `${pets.length === PETS_SHOWN ? "first " : ""}${pets.length} ${which}pets`;
  }
  return `<article id="pets" data-live>
<header><h2>Pets</h2><small>${htmlEscape(meta)}</small></header>
<nav id="pet-filters" role="group" aria-label="Filter by status">${filters.join("")}</nav>
<div class="scroll">${table(`<th class="num">ID</th><th>Name</th><th class="num">Category</th><th>Status</th>`, rows)}</div>
</article>`;
}

const REQUESTS_CARD = `<article>
<header><h2>Requests</h2><span class="pill ok" id="requests-live">live</span><small id="requests-meta"></small></header>
<div class="scroll" id="requests">${table(`<th>Time</th><th>Request</th><th class="num">Status</th><th class="num">ms</th><th>Plan</th>`, emptyRow(5, "no requests yet: they appear here live"))}</div>
</article>`;

export function pageHtml(view: PageView): string {
  const baseUrl = `${view.origin}/v1`;
  const host = view.origin.replace(/^https?:\/\//, "");
  // The lines of `serve --print-env`, with a stand-in for the key.
  const lines = exportLines(baseUrl, "<your key>").trimEnd();
  return `<!doctype html>
<html lang="en" data-theme="light">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>petstore serve · ${htmlEscape(host)}</title>
<link rel="icon" href="${ICON}">
<link rel="stylesheet" href="${HOME_PREFIX}pico.conditional.jade.min.css">
<link rel="stylesheet" href="${HOME_PREFIX}swagger-ui.css">
<link rel="stylesheet" href="${HOME_PREFIX}home.css">
<script src="${HOME_PREFIX}swagger-ui-bundle.js" defer></script>
<script src="${HOME_PREFIX}home.js" defer></script>
</head>
<body>
<header class="topbar">
  <img src="${ICON}" alt="" width="28" height="28"><strong>petstore serve</strong><span class="pill">local fake</span><span class="pill">v${htmlEscape(VERSION)}</span>
  ${statusLine(view)}
</header>
<main>
<div class="pico cards">
${notice(view)}
<article>
<header><h2>Point the CLI at this fake</h2></header>
<p>Base URL <code id="base-url">${htmlEscape(baseUrl)}</code></p>
<div class="shell"><pre id="cli-lines">${htmlEscape(lines)}</pre><button type="button" data-copy class="contrast">Copy</button></div>
<small>Put one of the keys below in place of <code>&lt;your key&gt;</code> (each has a Copy button: on a local fake they are no secret from you). <code>petstore serve --print-env</code> prints both lines with the first key.</small>
</article>
<div class="grid">
${keysCard(view)}
${FAULTS_CARD}
</div>
${verdictCard(view)}
<div class="grid">
${petsCard(view)}
${REQUESTS_CARD}
</div>
</div>
<section class="reference">
<h2>API reference <a href="/v1/openapi.json">openapi.json</a></h2>
<div id="reference"><p>Loading the reference…</p></div>
</section>
</main>
<footer>Served by <code>petstore serve</code>: every file of this page comes from this fake, nothing from the internet.</footer>
</body>
</html>
`;
}
