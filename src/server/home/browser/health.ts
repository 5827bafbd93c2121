/** The status pill in the top bar, from GET /__admin/health. */
import { byId, formatDuration } from "./dom.js";
import type { Health } from "./types.js";

export function showHealth(health: Health): void {
  const pill = byId("health");
  pill.dataset.state = health.status === "ok" ? "ok" : "error";
  const pets = `${health.pets.toLocaleString("en")} pet${health.pets === 1 ? "" : "s"}`;
  pill.querySelector(".text")!.textContent =
    `${health.status} · ${pets} · up ${formatDuration(health.uptimeSeconds)}`;
}

export function showHealthError(message: string): void {
  const pill = byId("health");
  pill.dataset.state = "error";
  pill.querySelector(".text")!.textContent = message;
}
