/** The keys table, from GET /__admin/keys: keys redacted by the fake, plans and quota left. */
import { byId, el, fillRows, formatCount, formatDuration } from "./dom.js";
import type { KeyEntry } from "./types.js";

function meter(remaining: number, limit: number): HTMLElement {
  const share = limit > 0 ? Math.min(1, Math.max(0, remaining / limit)) : 0;
  const bar = el("span", { class: "meter", "aria-hidden": "true" }, el("span", {}));
  const fill = bar.firstElementChild as HTMLElement;
  fill.style.width = `${(share * 100).toFixed(1)}%`;
  if (share < 0.1) fill.classList.add("low");
  return bar;
}

/** `nowSeconds`: the fake's own time (its clock can be moved forward). */
export function showKeys(keys: KeyEntry[], nowSeconds: number): void {
  const rows = keys.map((entry) =>
    el(
      "tr",
      {},
      el("td", {}, el("code", {}, entry.key)),
      el("td", {}, el("span", { class: `plan plan-${entry.plan}` }, entry.plan)),
      el("td", { class: "num" }, formatCount(entry.limit)),
      el(
        "td",
        { class: "num remaining" },
        formatCount(entry.remaining),
        entry.limit >= 2147483647 ? null : meter(entry.remaining, entry.limit),
      ),
      el("td", {}, `in ${formatDuration(entry.reset - nowSeconds)}`),
    ),
  );
  fillRows(byId("keys").querySelector("tbody")!, rows, "no keys");
  byId("keys-meta").textContent = `${keys.length} key${keys.length === 1 ? "" : "s"}`;
}
