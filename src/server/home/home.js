// The home page's script, served as it is: the fake renders the page (page.ts),
// and this keeps live what must be. Every second it reads what is new in the
// request journal; when something happened (and every five seconds) it reads
// the page again and puts in the parts marked data-live (status line, keys,
// pets). It sends the faults form to the control plane, copies keys and the
// CLI lines, keeps the --admin-token for this tab, and shows the API reference.
// All paused while the tab is hidden.
/* global document, window, location, history, navigator, sessionStorage, fetch, Headers, DOMParser, Option */
"use strict";

const TOKEN = "petstore-admin-token";
/** Journal rows kept on the page, newest first. */
const SHOWN = 200;
/** Characters of a POST body shown in a row's tooltip. */
const BODY_SHOWN = 2000;
/** Journal pages read in one poll at most; the rest waits for the next poll. */
const PAGES_PER_POLL = 20;
const POLL_MS = 1000;
const REFRESH_EVERY = 5;

const $ = (selector) => document.querySelector(selector);

/** The --admin-token given on this page, kept for this tab (sessionStorage). */
let adminToken = null;
try {
  adminToken = sessionStorage.getItem(TOKEN);
} catch {
  // Storage refused (a private window): a token lasts until the page reloads.
}

/** The answer, or an Error with the message of the fake's Error body. */
async function call(url, init = {}) {
  const headers = new Headers(init.headers);
  if (adminToken) headers.set("Authorization", `Bearer ${adminToken}`);
  let response;
  try {
    response = await fetch(url, { ...init, headers, cache: "no-store" });
  } catch {
    throw new Error("the fake does not answer (stopped, or restarting?)");
  }
  if (response.ok) return response;
  const body = await response.json().catch(() => ({}));
  throw new Error(body.message ?? `HTTP ${response.status}`);
}

/** An element with its class and children, every text put in as text. */
function el(tag, className, ...children) {
  const element = document.createElement(tag);
  element.className = className;
  element.append(...children);
  return element;
}

/**
 * The parts the fake renders anew, from the page as it is now (with the filter in
 * the URL); not one being typed in (the token's input).
 */
async function refresh() {
  try {
    const page = await call(location.href, { headers: { Accept: "text/html" } });
    const fresh = new DOMParser().parseFromString(await page.text(), "text/html");
    for (const part of document.querySelectorAll("[data-live]")) {
      const next = fresh.getElementById(part.id);
      if (next && part.querySelector("input:focus") === null) part.replaceWith(next);
    }
  } catch (error) {
    $("#health").textContent = error.message;
    $("#health").className = "down";
  }
}

// The request journal: page by page after the newest entry shown (?after=, its
// id; each page says if more follow, `nextAfter`). The first look starts SHOWN
// requests before the newest (`lastId`), so a full journal is never read whole.
// A fake restarted meanwhile numbers from 1 again: its newest id is then below
// the last one shown, and reading starts over.
let after;

async function readJournal() {
  const read = async (query) => (await call(`/__admin/requests?${query}`)).json();
  if (after === undefined) after = Math.max(0, (await read("limit=0")).lastId - SHOWN);
  const fresh = [];
  for (let pages = 0; pages < PAGES_PER_POLL; pages++) {
    const page = await read(`after=${after}`);
    if (page.lastId < after) {
      after = Math.max(0, page.lastId - SHOWN);
      continue;
    }
    fresh.push(...page.requests);
    if (page.requests.length > 0) after = page.requests.at(-1).id;
    if (page.nextAfter === null) break;
  }
  return fresh;
}

/** `12:04:05.123`, in the browser's time zone. */
function clock(iso) {
  const time = new Date(iso);
  const pad = (n, width = 2) => String(n).padStart(width, "0");
  return `${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}.${pad(time.getMilliseconds(), 3)}`;
}

function requestRow(entry) {
  const target = entry.query === "" ? entry.path : `${entry.path}?${entry.query}`;
  const request = el("td", "target", el("b", `method ${entry.method}`, entry.method), " ", target);
  request.title = entry.body?.slice(0, BODY_SHOWN) ?? target;
  const status = entry.status;
  const tone = typeof status !== "number" || status >= 500 ? "bad" : status < 400 ? "ok" : "warn";
  const row = el(
    "tr",
    "fresh",
    el("td", "time", clock(entry.time)),
    request,
    el("td", "num", el("span", `pill ${tone}`, String(status ?? "—"))),
    el("td", "num", entry.durationMs.toFixed(1)),
    el("td", "", entry.plan ?? "—"),
  );
  row.addEventListener("animationend", () => row.classList.remove("fresh"), { once: true });
  return row;
}

function showRequests(entries) {
  if (entries.length === 0) return;
  const body = $("#requests tbody");
  body.querySelector("td.empty")?.parentElement.remove();
  body.prepend(...entries.slice(-SHOWN).map(requestRow).reverse());
  while (body.children.length > SHOWN) body.lastElementChild.remove();
  $("#requests-meta").textContent = `latest ${body.children.length}`;
}

let tick = 0;
let timer;

async function poll() {
  timer = undefined;
  tick++;
  const live = $("#requests-live");
  let fresh = [];
  try {
    fresh = await readJournal();
    showRequests(fresh);
    live.classList.remove("off");
    live.textContent = "live";
    live.title = "";
  } catch (error) {
    live.classList.add("off");
    live.textContent = "paused";
    live.title = error.message;
  }
  if (fresh.length > 0 || tick % REFRESH_EVERY === 0) await refresh();
  schedule();
}

function schedule() {
  if (timer === undefined && document.visibilityState !== "hidden") {
    timer = setTimeout(poll, POLL_MS);
  }
}

// The faults form: GET /__admin/faults to show the settings, PUT to change them.
// The fake checks them and says what is wrong.
const form = $("#faults");

function describe(faults) {
  const parts = [];
  const latency = faults.latencyMs;
  if (latency !== null && latency.max > 0) {
    const range = latency.min === latency.max ? latency.min : `${latency.min}–${latency.max}`;
    parts.push(`${range} ms latency`);
  }
  if (faults.failRate > 0) {
    parts.push(`${+(faults.failRate * 100).toFixed(2)} % fail (${faults.failMode})`);
  }
  return parts.length === 0 ? "off" : parts.join(", ");
}

function showFaults(faults) {
  form.latencyMin.value = faults.latencyMs?.min ?? 0;
  form.latencyMax.value = faults.latencyMs?.max ?? 0;
  form.failRate.value = faults.failRate;
  // A mode this page does not know yet is shown as it is, not replaced by the first option.
  if (![...form.failMode.options].some((option) => option.value === faults.failMode)) {
    form.failMode.append(new Option(faults.failMode, faults.failMode));
  }
  form.failMode.value = faults.failMode;
  const meta = $("#faults-meta");
  meta.textContent = describe(faults);
  meta.className = meta.textContent === "off" ? "" : "warn";
}

/** `tone`: a class of home.css (ok, bad), or none. */
function say(text, tone) {
  $("#faults-status").textContent = text;
  $("#faults-status").className = tone;
}

async function applyFaults(faults) {
  say("applying…", "");
  try {
    const body = JSON.stringify(faults);
    const headers = { "Content-Type": "application/json" };
    const applied = await (await call("/__admin/faults", { method: "PUT", headers, body })).json();
    showFaults(applied);
    say(`applied: ${describe(applied)}`, "ok");
  } catch (error) {
    say(error.message, "bad");
  }
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  const number = (name) => (form[name].value === "" ? undefined : Number(form[name].value));
  const min = number("latencyMin") ?? number("latencyMax");
  const max = number("latencyMax") ?? min;
  void applyFaults({
    latencyMs: max > 0 ? { min, max } : null,
    failRate: number("failRate") ?? 0,
    failMode: form.failMode.value,
  });
});
$("#faults-off").addEventListener("click", () => {
  void applyFaults({ latencyMs: null, failRate: 0, failMode: "503" });
});

function loadFaults() {
  call("/__admin/faults")
    .then((answer) => answer.json())
    .then(showFaults, (error) => say(error.message, "bad"));
}

// Copy buttons copy the text just before them (a key, the CLI lines). A status
// filter reads the pets again without reloading the page.
document.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-copy]");
  if (button) {
    const flash = (text) => {
      const label = button.textContent;
      button.textContent = text;
      setTimeout(() => (button.textContent = label), 1500);
    };
    navigator.clipboard.writeText(button.previousElementSibling.textContent).then(
      () => flash("Copied"),
      () => flash("Select and copy"),
    );
  }
  const filter = event.target.closest("#pet-filters a");
  if (filter) {
    event.preventDefault();
    history.replaceState(null, "", filter.href);
    void refresh();
  }
});

// The --admin-token, asked for when the control plane answers 401, kept for this tab only.
document.addEventListener("submit", (event) => {
  if (event.target.id !== "token") return;
  event.preventDefault();
  adminToken = event.target.token.value;
  event.target.token.blur();
  try {
    sessionStorage.setItem(TOKEN, adminToken);
  } catch {
    // Storage refused: the token lasts until the page reloads.
  }
  loadFaults();
  void refresh();
});

// The API reference: Swagger UI (its script runs before this one) on the fake's
// document, read through /__home/openapi.json so the page's read is not journaled.
// No validator badge: that would call validator.swagger.io.
if (window.SwaggerUIBundle === undefined) {
  $("#reference").textContent = "The reference could not load (swagger-ui-bundle.js).";
} else {
  window.SwaggerUIBundle({
    url: "/__home/openapi.json",
    domNode: $("#reference"),
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    validatorUrl: null,
    deepLinking: false,
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
    displayRequestDuration: true,
    syntaxHighlight: { activated: true, theme: "agate" },
  });
}

document.addEventListener("visibilitychange", schedule);
loadFaults();
if (adminToken) void refresh();
void poll();
