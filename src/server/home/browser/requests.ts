/**
 * The live journal: GET /__admin/requests, then every second only what came
 * since the newest entry shown (?since=, its time in Unix ms). An entry is new
 * when its id is past the last one shown, or its time is later (the journal
 * may have been cleared, and ids started again).
 */
import { callJson } from "./admin.js";
import { byId, el, fillRows, formatClock, statusBadge } from "./dom.js";
import type { JournalEntry } from "./types.js";

/** Rows kept on the page, newest first. */
const SHOWN = 200;

export class RequestsPanel {
  private lastId = -1;
  private lastTimeMs = -Infinity;
  private readonly body = byId("requests").querySelector("tbody")!;
  private started = false;

  constructor(private readonly adminUrl: string) {}

  /** Fetches what is new and shows it; returns the new entries, oldest first. */
  async poll(): Promise<JournalEntry[]> {
    const since = Number.isFinite(this.lastTimeMs) ? `?since=${this.lastTimeMs}` : "";
    const { requests } = await callJson<{ requests: JournalEntry[] }>(
      `${this.adminUrl}/requests${since}`,
    );
    const fresh: JournalEntry[] = [];
    for (const entry of requests) {
      const timeMs = Date.parse(entry.time);
      if (entry.id > this.lastId || timeMs > this.lastTimeMs) {
        fresh.push(entry);
        this.lastId = entry.id;
        if (timeMs > this.lastTimeMs) this.lastTimeMs = timeMs;
      }
    }
    this.show(fresh.slice(-SHOWN));
    return fresh;
  }

  private show(entries: JournalEntry[]): void {
    if (!this.started) {
      this.started = true;
      if (entries.length === 0) fillRows(this.body, [], "no requests yet: they appear here live");
    }
    if (entries.length === 0) return;
    const empty = this.body.querySelector("td.empty");
    if (empty !== null) this.body.replaceChildren();
    const rows = entries.map((entry) => this.row(entry)).reverse();
    this.body.prepend(...rows);
    while (this.body.children.length > SHOWN) this.body.lastElementChild!.remove();
    const count = this.body.children.length;
    byId("requests-meta").textContent = `latest ${count}`;
  }

  private row(entry: JournalEntry): HTMLElement {
    const target = entry.query === "" ? entry.path : `${entry.path}?${entry.query}`;
    const row = el(
      "tr",
      { class: "fresh", "data-id": String(entry.id) },
      el("td", { class: "time" }, formatClock(entry.time)),
      el(
        "td",
        { class: "target" },
        el("span", { class: `method m-${entry.method.toLowerCase()}` }, entry.method),
        el("code", { title: entry.body ?? target }, target),
      ),
      el("td", { class: "num" }, statusBadge(entry.status)),
      el("td", { class: "num" }, entry.durationMs.toFixed(1)),
      el("td", {}, entry.plan ?? "—"),
    );
    row.addEventListener("animationend", () => row.classList.remove("fresh"), { once: true });
    return row;
  }

  setLive(live: boolean, why = ""): void {
    const badge = byId("requests-live");
    badge.classList.toggle("off", !live);
    badge.textContent = live ? "live" : "paused";
    badge.title = why;
  }
}
