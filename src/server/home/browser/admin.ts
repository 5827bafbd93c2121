/**
 * Calls to the control plane (/__admin) and the page's reads of pets and keys,
 * with the admin token when one was entered (kept for this tab only, in sessionStorage).
 * A failed call throws a CallError with the server's Error message.
 */
import type { ErrorBody } from "./types.js";

const TOKEN_KEY = "petstore-admin-token";

export class CallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function adminToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setAdminToken(token: string): void {
  try {
    if (token === "") sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // Storage refused (a private window): the token lasts until the page reloads.
  }
  memoryToken = token;
}

let memoryToken: string | null = null;

/** The response's text, or a CallError. */
export async function call(url: string, init: RequestInit = {}): Promise<string> {
  const token = memoryToken ?? adminToken();
  const headers = new Headers(init.headers);
  headers.set("Accept", "application/json");
  // /__home/keys answers whoever may use the control plane: it takes the same token.
  if (token !== null && token !== "" && /\/__admin\/|\/__home\/keys$/.test(url)) {
    headers.set("Authorization", `Bearer ${token}`);
  }
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers, cache: "no-store" });
  } catch {
    throw new CallError(0, "network", "the fake does not answer (stopped, or restarting?)");
  }
  const text = await response.text();
  if (response.ok) return text;
  let body: Partial<ErrorBody> = {};
  try {
    body = JSON.parse(text) as Partial<ErrorBody>;
  } catch {
    // Not an Error body: the status says enough.
  }
  throw new CallError(
    response.status,
    typeof body.code === "string" ? body.code : `http_${response.status}`,
    typeof body.message === "string" ? body.message : `HTTP ${response.status}`,
  );
}

export async function callJson<T>(url: string, init?: RequestInit): Promise<T> {
  return JSON.parse(await call(url, init)) as T;
}

/** JSON with int64 fields kept as their digits (JSON.parse source text access, where the browser has it). */
export function parseExact<T>(text: string, fields: readonly string[]): T {
  return JSON.parse(text, function (this: unknown, key, value, context?: { source?: string }) {
    if (fields.includes(key) && typeof value === "number") return context?.source ?? String(value);
    return value;
  } as (key: string, value: unknown) => unknown) as T;
}
