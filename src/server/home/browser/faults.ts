/** The fault settings form: GET /__admin/faults to show them, PUT to change them. */
import { CallError, callJson } from "./admin.js";
import { byId } from "./dom.js";
import type { Faults } from "./types.js";

const OFF: Faults = { latencyMs: null, failRate: 0, failMode: "503" };

function describe(faults: Faults): string {
  const parts: string[] = [];
  const latency = faults.latencyMs;
  if (latency !== null && latency.max > 0) {
    parts.push(
      latency.min === latency.max
        ? `${latency.min} ms latency`
        : `${latency.min}–${latency.max} ms latency`,
    );
  }
  if (faults.failRate > 0) {
    parts.push(`${+(faults.failRate * 100).toFixed(2)} % fail (${faults.failMode})`);
  }
  return parts.length === 0 ? "off" : parts.join(", ");
}

export class FaultsPanel {
  private readonly form = byId<HTMLFormElement>("faults");
  private readonly status = byId("faults-status");

  constructor(private readonly adminUrl: string) {
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      const faults = this.read();
      if (typeof faults === "string") this.say(faults, "bad");
      else void this.apply(faults);
    });
    byId("faults-off").addEventListener("click", () => void this.apply(OFF));
  }

  async load(): Promise<void> {
    this.show(await callJson<Faults>(`${this.adminUrl}/faults`));
  }

  private field(name: string): HTMLInputElement | HTMLSelectElement {
    return this.form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
  }

  private show(faults: Faults): void {
    this.field("latencyMin").value = String(faults.latencyMs?.min ?? 0);
    this.field("latencyMax").value = String(faults.latencyMs?.max ?? 0);
    this.field("failRate").value = String(faults.failRate);
    const mode = this.field("failMode") as HTMLSelectElement;
    // A mode this page does not know yet is shown as it is, not replaced by the first option.
    if (![...mode.options].some((option) => option.value === faults.failMode)) {
      mode.append(new Option(faults.failMode, faults.failMode));
    }
    mode.value = faults.failMode;
    const meta = byId("faults-meta");
    meta.textContent = describe(faults);
    meta.dataset.on = String(meta.textContent !== "off");
  }

  /** The settings in the form, or what is wrong with them. */
  private read(): Faults | string {
    const number = (name: string): number | undefined => {
      const text = this.field(name).value.trim();
      return text === "" ? undefined : Number(text);
    };
    let min = number("latencyMin");
    let max = number("latencyMax");
    min ??= max;
    max ??= min;
    const failRate = number("failRate") ?? 0;
    if (min !== undefined && max !== undefined) {
      if (!Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < 0) {
        return "latency must be whole milliseconds, 0 or more";
      }
      if (min > max) return "the latency minimum is above the maximum";
    }
    if (!(failRate >= 0 && failRate <= 1)) return "the fail rate is a share from 0 to 1";
    return {
      latencyMs: min === undefined || max === undefined || max === 0 ? null : { min, max: max },
      failRate,
      failMode: this.field("failMode").value,
    };
  }

  private async apply(faults: Faults): Promise<void> {
    this.say("applying…", "");
    try {
      const applied = await callJson<Faults>(`${this.adminUrl}/faults`, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(faults),
      });
      this.show(applied);
      this.say(`applied: ${describe(applied)}`, "ok");
    } catch (error) {
      this.say(error instanceof CallError ? error.message : String(error), "bad");
    }
  }

  private say(text: string, tone: "ok" | "bad" | ""): void {
    this.status.textContent = text;
    this.status.dataset.tone = tone;
  }
}
