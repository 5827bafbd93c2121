/**
 * `petstore auth status`: which profile, environment, address and key a run
 * uses (and why), checked with one real request (GET /pets?limit=1), with the
 * rate limit from its headers. A rejected or missing key exits 3. `--json`
 * gives the same, the key redacted, on stdout; the exit code is the same.
 */
import type { RateLimitInfo } from "../../client/types.js";
import { isoTime, windowOf } from "../../client/wait-text.js";
import type { Factory } from "../factory.js";
import { loadPalette, type Palette } from "../../output/palette.js";
import { escapeJsonControls } from "../../output/text-escape.js";
import { stringifyJson } from "../../schema/json.js";
import { booleanOption } from "../option-values.js";
import { describeRateLimit } from "../rate-limit-summary.js";
import type { CommandRunner } from "../runner.js";
import { requestOptionsFrom, type RequestOptions } from "../request-options.js";
import { formatLines, settingsJson, settingsLines } from "../settings-summary.js";

export interface StatusOptions {
  request: RequestOptions;
  json?: boolean;
}

interface Failure {
  exitCode?: number;
  status?: number;
  message?: string;
  response?: { rateLimit?: RateLimitInfo };
}

type KeyState = "accepted" | "rejected" | "not_checked" | "none";

function keyState(hasKey: boolean, error: Failure | undefined): KeyState {
  if (!hasKey) return "none";
  if (error === undefined) return "accepted";
  return error.status === 401 ? "rejected" : "not_checked";
}

function keyVerdict(state: KeyState, error: Failure | undefined, palette: Palette): string {
  if (state === "accepted") return palette.green("accepted");
  if (state === "rejected") return palette.red("rejected by the service (401)");
  return palette.yellow(`not checked: ${error?.message ?? "the request failed"}`);
}

function rateLimitJson(rateLimit: RateLimitInfo | undefined, nowMs: number) {
  if (rateLimit === undefined) return null;
  return {
    limit: rateLimit.limit,
    remaining: rateLimit.remaining,
    resetAt: isoTime(rateLimit.resetAt),
    window: windowOf(rateLimit.resetAt, nowMs) ?? null,
  };
}

export async function statusRun(options: StatusOptions, factory: Factory): Promise<void> {
  const { client, settings } = await factory.client(options.request);
  const { io } = factory;
  let failure: Failure | undefined;
  let rateLimit: RateLimitInfo | undefined;
  try {
    rateLimit = (await client.listPets({ limit: 1 })).response.rateLimit;
  } catch (error) {
    failure = error as Failure;
    rateLimit = failure.response?.rateLimit;
  }
  rateLimit ??= client.lastRateLimit;
  const state = keyState(settings.apiKey !== undefined, failure);
  if (options.json) {
    const report: Record<string, unknown> = { ...settingsJson(settings), key: state };
    if (state !== "none") {
      if (failure !== undefined) report.keyProblem = failure.message ?? "the request failed";
      report.rateLimit = rateLimitJson(rateLimit, factory.now());
    }
    io.stdout.write(escapeJsonControls(stringifyJson(report, io.stdout.isTTY ? 2 : 0)) + "\n");
  } else {
    const palette = await loadPalette(io, "stdout");
    const lines = settingsLines(settings, palette);
    if (state !== "none") {
      lines.push(["Key", keyVerdict(state, failure, palette)]);
      lines.push(["Rate limit", describeRateLimit(rateLimit, factory.now())]);
    }
    io.stdout.write(formatLines(lines));
  }
  if (failure !== undefined) throw failure;
}

export const run: CommandRunner = (parsed, factory) =>
  statusRun(
    {
      request: requestOptionsFrom(parsed.options, factory.env),
      json: booleanOption(parsed.options, "json"),
    },
    factory,
  );
