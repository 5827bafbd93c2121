/**
 * API keys of the fake and their plans. A key spec is `key[:plan[:perMinute/perDay]]`:
 * `abc` (free), `abc:pro`, `abc:enterprise` (unlimited), `abc:enterprise:600/20000`.
 * Keys are RFC 6750 b64token characters, so `:` and `,` can separate fields and specs.
 */
import { randomBytes } from "node:crypto";
import { ServerConfigError } from "./config-error.js";

export interface WindowLimits {
  perMinute: number;
  perDay: number;
}

/** The plans of the spec; enterprise is custom, unlimited unless limits are given. */
export const PLAN_LIMITS = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: null,
} as const satisfies Record<string, WindowLimits | null>;

export type PlanName = keyof typeof PLAN_LIMITS;
export const PLAN_NAMES = Object.keys(PLAN_LIMITS) as PlanName[];

export interface ApiKeySpec {
  key: string;
  plan: PlanName;
  /** null: unlimited. */
  limits: WindowLimits | null;
}

export const KEY_PATTERN = /^[A-Za-z0-9\-._~+/]+=*$/;
export const MAX_KEY_LENGTH = 512;
const CUSTOM_LIMITS_PATTERN = /^([1-9][0-9]{0,8})\/([1-9][0-9]{0,9})$/;

function isPlanName(text: string): text is PlanName {
  return Object.prototype.hasOwnProperty.call(PLAN_LIMITS, text);
}

/** Parses one spec; `where` names its origin in messages (e.g. `--key`, `keys.txt line 3`). */
export function parseKeySpec(spec: string, where = "--key"): ApiKeySpec {
  const [key = "", planText, limitsText, ...rest] = spec.trim().split(":");
  if (key === "") throw new ServerConfigError(`${where}: the key is empty`);
  if (key.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(key)) {
    throw new ServerConfigError(
      `${where}: a key must be 1 to ${MAX_KEY_LENGTH} of the characters A-Z a-z 0-9 - . _ ~ + / (then optional =)`,
    );
  }
  if (rest.length > 0) {
    throw new ServerConfigError(`${where}: expected key[:plan[:perMinute/perDay]]`);
  }
  const plan = planText === undefined || planText === "" ? "free" : planText.toLowerCase();
  if (!isPlanName(plan)) {
    throw new ServerConfigError(
      `${where}: unknown plan ${JSON.stringify(planText)}; plans: ${PLAN_NAMES.join(", ")}`,
    );
  }
  if (limitsText === undefined) return { key, plan, limits: PLAN_LIMITS[plan] };
  if (plan !== "enterprise") {
    throw new ServerConfigError(
      `${where}: custom limits are for the enterprise plan only; ${plan} has ${describeLimits(PLAN_LIMITS[plan])}`,
    );
  }
  const match = CUSTOM_LIMITS_PATTERN.exec(limitsText);
  if (!match) {
    throw new ServerConfigError(
      `${where}: limits must be perMinute/perDay as positive integers, e.g. 600/20000; got ${JSON.stringify(limitsText)}`,
    );
  }
  const limits = { perMinute: Number(match[1]), perDay: Number(match[2]) };
  if (limits.perDay < limits.perMinute) {
    throw new ServerConfigError(`${where}: the per-day limit is below the per-minute limit`);
  }
  return { key, plan, limits };
}

function describeLimits(limits: WindowLimits | null): string {
  return limits === null ? "no limits" : `${limits.perMinute}/min and ${limits.perDay}/day`;
}

/** A keys file: one spec per line; blank lines and `#` comments are skipped. */
export function parseKeysFile(text: string, fileName: string): ApiKeySpec[] {
  const keys: ApiKeySpec[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const content = line.replace(/#.*$/, "").trim();
    if (content !== "") keys.push(parseKeySpec(content, `${fileName} line ${index + 1}`));
  });
  return keys;
}

/** `PETSTORE_SERVE_KEYS`: specs separated by commas. */
export function parseKeysList(text: string, where: string): ApiKeySpec[] {
  return text
    .split(",")
    .map((spec) => spec.trim())
    .filter((spec) => spec !== "")
    .map((spec) => parseKeySpec(spec, where));
}

/** Rejects a key given twice with different plans; drops exact repeats. */
export function mergeKeys(specs: readonly ApiKeySpec[]): ApiKeySpec[] {
  const byKey = new Map<string, ApiKeySpec>();
  for (const spec of specs) {
    const seen = byKey.get(spec.key);
    if (seen === undefined) {
      byKey.set(spec.key, spec);
    } else if (
      seen.plan !== spec.plan ||
      describeLimits(seen.limits) !== describeLimits(spec.limits)
    ) {
      throw new ServerConfigError("the same key is given twice with different plans or limits");
    }
  }
  return [...byKey.values()];
}

/** A fresh free-plan key, 192 random bits. */
export function generateKey(): ApiKeySpec {
  return {
    key: "psk_" + randomBytes(24).toString("base64url"),
    plan: "free",
    limits: PLAN_LIMITS.free,
  };
}
