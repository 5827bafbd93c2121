/**
 * `petstore auth status`: which profile, environment, address and key a run
 * uses (and why), checked with one real request (GET /pets?limit=1), with the
 * rate limit from its headers. A rejected or missing key exits 3.
 */
import type { RateLimitInfo } from "../../client/types.js";
import type { Factory } from "../factory.js";
import { loadPalette, type Palette } from "../../output/palette.js";
import type { CommandRunner } from "../runner.js";
import { requestOptionsFrom, type RequestOptions } from "../request-options.js";
import { formatLines, settingsLines } from "../settings-summary.js";

export interface StatusOptions {
  request: RequestOptions;
}

export function describeRateLimit(rateLimit: RateLimitInfo | undefined, nowMs: number): string {
  if (rateLimit === undefined) return "not reported by the service";
  const inSeconds = Math.max(0, Math.ceil((rateLimit.resetAt - nowMs) / 1000));
  const resetAt = new Date(rateLimit.resetAt).toISOString().replace(/\.000Z$/, "Z");
  return `${rateLimit.remaining} of ${rateLimit.limit} requests left; resets at ${resetAt} (in ${inSeconds} s)`;
}

interface Failure {
  exitCode?: number;
  status?: number;
  message?: string;
  response?: { rateLimit?: RateLimitInfo };
}

function keyVerdict(error: Failure | undefined, palette: Palette): string {
  if (error === undefined) return palette.green("accepted");
  if (error.status === 401) return palette.red("rejected by the service (401)");
  return palette.yellow(`not checked: ${error.message ?? "the request failed"}`);
}

export async function statusRun(options: StatusOptions, factory: Factory): Promise<void> {
  const { client, settings } = await factory.client(options.request);
  const palette = await loadPalette(factory.io, "stdout");
  let failure: Failure | undefined;
  let rateLimit: RateLimitInfo | undefined;
  try {
    rateLimit = (await client.listPets({ limit: 1 })).response.rateLimit;
  } catch (error) {
    failure = error as Failure;
    rateLimit = failure.response?.rateLimit;
  }
  rateLimit ??= client.lastRateLimit;
  const lines = settingsLines(settings, palette);
  if (settings.apiKey !== undefined) {
    lines.push(["Key", keyVerdict(failure, palette)]);
    lines.push(["Rate limit", describeRateLimit(rateLimit, factory.now())]);
  }
  factory.io.stdout.write(formatLines(lines));
  if (failure !== undefined) throw failure;
}

export const run: CommandRunner = (parsed, factory) =>
  statusRun({ request: requestOptionsFrom(parsed.options, factory.env) }, factory);
