/**
 * The keys table, from GET /__home/keys: each key in full with a Copy button (on
 * a local fake they are not secrets from the person running it), its plan and
 * quota left. Each cell is labelled, for the narrow layout where rows stack.
 */
import { copyText } from "./copy.js";
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
      el(
        "td",
        { class: "key" },
        el("code", {}, entry.key),
        el("button", { type: "button", class: "copy-key", "aria-label": "Copy the key" }, "Copy"),
      ),
      el(
        "td",
        { "data-label": "Plan" },
        el("span", { class: `plan plan-${entry.plan}` }, entry.plan),
      ),
      el("td", { class: "num", "data-label": "Limit" }, formatCount(entry.limit)),
      el(
        "td",
        { class: "num remaining", "data-label": "Remaining" },
        formatCount(entry.remaining),
        entry.limit >= 2147483647 ? null : meter(entry.remaining, entry.limit),
      ),
      el("td", { "data-label": "Resets" }, `in ${formatDuration(entry.reset - nowSeconds)}`),
    ),
  );
  fillRows(byId("keys").querySelector("tbody")!, rows, "no keys");
  byId("keys-meta").textContent = `${keys.length} key${keys.length === 1 ? "" : "s"}`;
}

/** One listener for the Copy button of every key, rows redrawn or not. */
export function setUpKeyCopying(): void {
  byId("keys").addEventListener("click", (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>("button.copy-key");
    const key = button?.closest("td")?.querySelector("code")?.textContent;
    if (button && key) copyText(button, key);
  });
}
