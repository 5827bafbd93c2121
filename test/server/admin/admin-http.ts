/** Helpers for the control-plane tests: JSON calls to /__admin on a test server. */
import { expect } from "vitest";
import { ADMIN_ROUTES } from "../../../src/server/admin/routes.js";
import { call, type Answer, type Call } from "../http.js";

/** "METHOD /path" of every route of the table (HEAD aside). */
export const ADMIN_OPERATIONS = Object.entries(ADMIN_ROUTES).flatMap(([path, methods]) =>
  Object.keys(methods).map((method) => `${method} ${path}`),
);

export interface AdminAnswer extends Answer {
  body: Record<string, unknown>;
}

/** `path` after /__admin; a `json` value is sent as the body. */
export async function admin(
  baseUrl: string,
  path: string,
  options: Call & { json?: unknown } = {},
): Promise<AdminAnswer> {
  const { json, ...rest } = options;
  const answer = await call(baseUrl, `/__admin${path}`, {
    ...rest,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const body = answer.text === "" ? {} : (JSON.parse(answer.text) as Record<string, unknown>);
  return Object.assign(answer, { body });
}

/** An Error body with this status and code; returns its message. */
export function expectError(answer: AdminAnswer, status: number, code: string): string {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers["content-type"]).toBe("application/json");
  expect(answer.body).toEqual({ code, message: expect.any(String), status });
  return answer.body.message as string;
}
