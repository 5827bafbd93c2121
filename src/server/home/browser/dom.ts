/** Small DOM helpers: every text goes in as text, never as HTML. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`the page has no #${id}`);
  return found as T;
}

type Child = Node | string | number | null | undefined;

export function el(
  tag: string,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined) continue;
    element.append(typeof child === "object" ? child : String(child));
  }
  return element;
}

/** A table body's rows, or one row saying why there are none. */
export function fillRows(body: HTMLElement, rows: HTMLElement[], empty: string): void {
  if (rows.length > 0) {
    body.replaceChildren(...rows);
    return;
  }
  const columns = body.closest("table")?.querySelectorAll("thead th").length ?? 1;
  body.replaceChildren(el("tr", {}, el("td", { class: "empty", colspan: String(columns) }, empty)));
}

/** The whole-number limit the fake sends for an unlimited key. */
const UNLIMITED = 2147483647;

export function formatCount(value: number): string {
  return value >= UNLIMITED ? "unlimited" : value.toLocaleString("en");
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** `12:04:05.123`, in the browser's time zone. */
export function formatClock(iso: string): string {
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}.${pad(time.getMilliseconds(), 3)}`;
}

/** A status badge: `ok` for 2xx and 3xx, `warn` for 4xx, `bad` for 5xx and resets. */
export function statusBadge(status: number | string | null): HTMLElement {
  const code = typeof status === "number" ? status : NaN;
  const tone = code < 400 ? "ok" : code < 500 ? "warn" : "bad";
  return el("span", { class: `badge ${tone}` }, status === null ? "—" : String(status));
}
