/**
 * The live journal: GET /__admin/requests page by page (each answer is of a bounded
 * size and says where the next begins, `nextAfter`), then every second
 * only what came after the newest entry shown (?after=, its id). The first look
 * starts `SHOWN` requests before the newest (`lastId`), so a full journal of big
 * bodies is never read whole. A fake restarted meanwhile numbers its requests
 * from 1 again: its newest id is then below the last one shown, and reading
 * starts over.
 */
import { callJson } from "./admin.js";
import { byId, el, fillRows, formatClock, statusBadge } from "./dom.js";
import type { JournalEntry } from "./types.js";

/** Rows kept on the page, newest first. */
const SHOWN = 200;
/** Characters of a POST body shown in a row's tooltip. */
const BODY_SHOWN = 2000;
/** Pages read in one poll at most; the rest waits for the next poll. */
const PAGES_PER_POLL = 20;

interface Page {
  requests: JournalEntry[];
  lastId: number;
  nextAfter: number | null;
}

export class RequestsPanel {
  /** The id of the newest entry shown; undefined before the first look. */
  private after: number | undefined;
  private readonly body = byId("requests").querySelector("tbody")!;
  private started = false;

  constructor(private readonly adminUrl: string) {}

  private read(query: string): Promise<Page> {
    return callJson<Page>(`${this.adminUrl}/requests?${query}`);
  }

  /** Fetches what is new and shows it; returns the new entries, oldest first. */
  async poll(): Promise<JournalEntry[]> {
    if (this.after === undefined) {
      const { lastId } = await this.read("limit=0");
      this.after = Math.max(0, lastId - SHOWN);
    }
    const fresh: JournalEntry[] = [];
    for (let pages = 0; pages < PAGES_PER_POLL; pages++) {
      const page = await this.read(`after=${this.after}`);
      if (page.lastId < this.after) {
        this.after = Math.max(0, page.lastId - SHOWN);
        continue;
      }
      fresh.push(...page.requests);
      const newest = page.requests[page.requests.length - 1];
      if (newest !== undefined) this.after = newest.id;
      if (page.nextAfter === null) break;
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
        el("code", { title: entry.body?.slice(0, BODY_SHOWN) ?? target }, target),
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
