/**
 * The home page's script. The server renders the page's frame and its config
 * (#home-config); this fills it from the control plane and keeps it current:
 * the journal every second, then keys, health and pets when something happened
 * (and every five seconds), all paused while the tab is hidden.
 */
import { CallError, callJson, setAdminToken } from "./admin.js";
import { copyText } from "./copy.js";
import { byId, el } from "./dom.js";
import { FaultsPanel } from "./faults.js";
import { showHealth, showHealthError } from "./health.js";
import { setUpKeyCopying, showKeys } from "./keys.js";
import { PetsPanel } from "./pets.js";
import { showReference } from "./reference.js";
import { RequestsPanel } from "./requests.js";
import type { Health, HomeConfig, JournalEntry, KeyEntry } from "./types.js";

const POLL_MS = 1000;
const REFRESH_EVERY = 5;

const config = JSON.parse(byId("home-config").textContent ?? "{}") as HomeConfig;
const admin = config.adminUrl;
const pets = new PetsPanel(config.petsUrl);
const requests = new RequestsPanel(admin);
const faults = new FaultsPanel(admin);
let petCount: number | undefined;

function setUpCopyButtons(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-copy]")) {
    button.addEventListener("click", () => {
      copyText(button, byId(button.dataset.copy ?? "").textContent ?? "");
    });
  }
  setUpKeyCopying();
}

/** A control-plane failure, said once at the top; a 401 asks for the --admin-token. */
function showAdminProblem(error: unknown): void {
  const notice = byId("admin-notice");
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof CallError && error.status === 401) {
    const input = el("input", {
      type: "password",
      placeholder: "admin token",
      "aria-label": "admin token",
    }) as HTMLInputElement;
    const form = el(
      "form",
      { class: "token" },
      el(
        "span",
        {},
        `The control plane (/__admin) needs the token given to --admin-token: ${message}`,
      ),
      input,
      el("button", { type: "submit" }, "Use token"),
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      setAdminToken(input.value);
      notice.hidden = true;
      void refreshAll();
    });
    if (notice.querySelector("form.token") === null) notice.replaceChildren(form);
  } else {
    notice.replaceChildren(el("span", {}, `The control plane (/__admin) answered: ${message}`));
  }
  notice.hidden = false;
}

function hideAdminProblem(): void {
  const notice = byId("admin-notice");
  if (notice.querySelector("input:focus") === null) notice.hidden = true;
}

async function refreshStatus(): Promise<void> {
  const [health, keys, clock] = await Promise.all([
    callJson<Health>(`${admin}/health`),
    callJson<{ keys: KeyEntry[] }>(config.keysUrl),
    callJson<{ nowMs: number }>(`${admin}/clock`).catch(() => ({ nowMs: Date.now() })),
  ]);
  showHealth(health);
  showKeys(keys.keys, clock.nowMs / 1000);
  if (petCount !== undefined && health.pets !== petCount) void pets.refresh();
  petCount = health.pets;
}

function changedPets(entries: JournalEntry[]): boolean {
  return entries.some(
    (entry) =>
      (entry.method === "POST" &&
        entry.path === "/v1/pets" &&
        typeof entry.status === "number" &&
        entry.status < 300) ||
      entry.path.startsWith("/__admin/reset"),
  );
}

async function refreshAll(): Promise<void> {
  void pets.refresh();
  await Promise.all([faults.load(), refreshStatus()]).then(hideAdminProblem, (error: unknown) => {
    showHealthError(error instanceof Error ? error.message : String(error));
    showAdminProblem(error);
  });
}

let tick = 0;
let timer: ReturnType<typeof setTimeout> | undefined;

async function poll(): Promise<void> {
  timer = undefined;
  tick++;
  let fresh: JournalEntry[] = [];
  try {
    fresh = await requests.poll();
    requests.setLive(true);
  } catch (error) {
    requests.setLive(false, error instanceof Error ? error.message : String(error));
  }
  if (fresh.length > 0 || tick % REFRESH_EVERY === 0) {
    await refreshStatus().then(hideAdminProblem, (error: unknown) => {
      showHealthError(error instanceof Error ? error.message : String(error));
      if (error instanceof CallError) showAdminProblem(error);
    });
  }
  if (changedPets(fresh) || tick % REFRESH_EVERY === 0) void pets.refresh();
  schedule();
}

function schedule(): void {
  if (timer === undefined && document.visibilityState !== "hidden") {
    timer = setTimeout(() => void poll(), POLL_MS);
  }
}

document.addEventListener("visibilitychange", schedule);
setUpCopyButtons();
void refreshAll().then(() => poll());
// Swagger UI's script comes after this one (both deferred): it has run by DOMContentLoaded.
document.addEventListener("DOMContentLoaded", () => showReference(config.openApiUrl));
