/**
 * `petstore auth status`: which profile, environment, address and key a run
 * uses (and why), checked with one real request (GET /pets?limit=1), with the
 * rate limit from its headers, and the proxy it goes through (or why none) when
 * a proxy variable is set. A rejected or missing key exits 3. `--json` gives the
 * same, the key redacted, on stdout; the exit code is the same. A key kept in the
 * config file comes with whether a system keyring could hold it instead, or why not.
 */
import { describeRoute, type ProxyRoute } from "../../client/proxy-env.js";
import type { RateLimitInfo } from "../../http-response.js";
import { isoTime, windowOf } from "../../client/wait-text.js";
import type { HttpError } from "../../errors.js";
import type { Factory } from "../factory.js";
import { keyringProblem } from "../../profiles/key-store.js";
import { keyringName } from "../../profiles/keyring-name.js";
import { loadPalette, type Palette } from "../../output/palette.js";
import { writeJson } from "../../output/write-rows.js";
import type { Command } from "commander";
import { addExamples } from "../help-layout.js";
import { addJsonOption } from "../output-options.js";
import { addRequestOptions, requestOptionsFrom, type RequestFlags } from "../request-options.js";
import {
  describeRateLimit,
  formatLines,
  settingsJson,
  settingsLines,
} from "../settings-summary.js";

type StatusFlags = RequestFlags & { json?: boolean };

export function statusCommand(auth: Command, factory: Factory): void {
  const command = auth
    .command("status")
    .description("check the key with a real request; show profile, address and rate limit")
    .action((flags: StatusFlags) => statusRun(flags, factory));
  addRequestOptions(addJsonOption(command, "the same as JSON on stdout, the key redacted"));
  addExamples(command, [
    "petstore auth status",
    "petstore auth status --profile ci --env staging",
    "petstore auth status --json | jq .rateLimit",
  ]);
}

/** What the check's failure may tell: any error, an HttpError's status and answer when it is one. */
type Failure = Partial<HttpError>;

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
  const { limit, remaining, resetAt } = rateLimit;
  return { limit, remaining, resetAt: isoTime(resetAt), window: windowOf(resetAt, nowMs) ?? null };
}

/** The route as JSON: null when no proxy variable is set; never a credential. */
function proxyJson(route: ProxyRoute | undefined): Record<string, unknown> | null {
  if (route === undefined) return null;
  if (route.kind === "proxy") {
    const { url, variable, authorization, tunnel } = route.proxy;
    return { url, from: variable, credentials: authorization !== undefined, tunnel };
  }
  if (route.reason === undefined) {
    return route.ignored === undefined ? null : { url: null, ignored: route.ignored };
  }
  const noProxy = route.noProxy && {
    noProxy: { from: route.noProxy.variable, entry: route.noProxy.entry },
  };
  return { url: null, from: route.variable, direct: route.reason, ...noProxy };
}

export async function statusRun(flags: StatusFlags, factory: Factory): Promise<void> {
  const { client, settings, route } = await factory.client(requestOptionsFrom(flags, factory.env));
  const { io } = factory;
  const failure = await client.listPets({ limit: 1 }).then(
    () => undefined,
    (error: unknown) => error as Failure,
  );
  // The client keeps the rate limit of the last answer that had one: this one's, refusals included.
  const rateLimit = client.lastRateLimit;
  const state = keyState(settings.apiKey !== undefined, failure);
  const inFile = settings.sources.apiKey === "profile" && settings.keyring === undefined;
  const noKeyring = inFile ? await keyringProblem(factory.env) : undefined;
  if (flags.json) {
    const report: Record<string, unknown> = {
      ...settingsJson(settings),
      proxy: proxyJson(route),
      key: state,
    };
    if (state !== "none") {
      if (failure !== undefined) report.keyProblem = failure.message ?? "the request failed";
      report.rateLimit = rateLimitJson(rateLimit, factory.now());
    }
    if (noKeyring !== undefined) report.keyringProblem = noKeyring;
    writeJson(io.stdout, report);
  } else {
    const palette = await loadPalette(io, "stdout");
    const lines = settingsLines(settings, palette);
    const proxy = route && describeRoute(route, new URL(settings.baseUrl));
    if (proxy !== undefined) lines.push(["Proxy", proxy]);
    if (state !== "none") {
      lines.push(["Key", keyVerdict(state, failure, palette)]);
      lines.push(["Rate limit", describeRateLimit(rateLimit, factory.now())]);
    }
    if (noKeyring !== undefined) {
      const keyring =
        noKeyring === null
          ? `${keyringName()} answers: \`petstore auth login\` moves the key there`
          : palette.yellow(`none, so the key is in the file: ${noKeyring}`);
      lines.push(["Keyring", keyring]);
    }
    io.stdout.write(formatLines(lines));
  }
  if (failure !== undefined) throw failure;
}
