/**
 * What commands need from the world, built lazily (the GitHub CLI's Factory): a
 * command that never sends a request never loads the HTTP client, one that never
 * writes the config never loads the code that writes it. Tests pass their own IO,
 * transport and clock.
 */
import type { ClientOptions } from "../client/client.js";
import type { PetstoreClient } from "../client/types.js";
import { describeRoute, proxyRoute, type ProxyRoute } from "../client/proxy-env.js";
import { EXIT, HostNotFoundError, PetstoreError } from "../errors.js";
import { parseBaseUrl } from "../profiles/environments.js";
import { createRetryNotices } from "./retry-notice.js";
import { describeSource } from "./settings-summary.js";
import type { RequestOptions } from "./request-options.js";
import { VERSION } from "./version.js";
import type { IO } from "../io.js";
import {
  loadConfig,
  type LoadedConfig,
  type StoredConfig,
  updateConfig,
  type UpdateOptions,
} from "../profiles/config-file.js";
import {
  resolveSettings,
  type ResolvedSettings,
  type ResolveOptions,
  type SettingsFlags,
  type Source,
} from "../profiles/resolve.js";

export interface SettingsOptions extends ResolveOptions {
  /** auth login: a config file that is not a config will be replaced, so it is not needed. */
  replacingConfig?: boolean;
}

const fromOutside = (source: Source) => source === "flag" || source === "environment";

/** Whether a run with these settings could have taken anything from the config file. */
function needsConfig(settings: ResolvedSettings, options: SettingsOptions): boolean {
  const { sources } = settings;
  if (fromOutside(sources.profile) && !options.allowNewProfile) return true;
  return !fromOutside(sources.baseUrl) || !fromOutside(sources.apiKey);
}

/**
 * A first run that explains itself: the built-in base URLs are placeholders
 * (`https://api.petstore.example/v1`), so a run that has none configured fails
 * on a host that does not exist. That failure (a HostNotFoundError, exit 6, not
 * retried) is reworded to say that no service URL is configured and how to set
 * one; for a configured URL that does not resolve, the hint names where it
 * came from.
 */
function explainBaseUrlFailure(error: unknown, settings: ResolvedSettings): unknown {
  if (!(error instanceof HostNotFoundError)) return error;
  const { baseUrl, env } = settings;
  const host = new URL(baseUrl).hostname;
  if (settings.sources.baseUrl === "default") {
    return new PetstoreError(
      `no service URL is configured: ${baseUrl} is the built-in ${env} placeholder, and its host ${host} does not exist`,
      EXIT.NETWORK,
      "set one with --base-url <url> (this run), PETSTORE_BASE_URL=<url> (this shell), or `petstore auth login --base-url <url>` (stored in the profile)",
    );
  }
  const source = describeSource("baseUrl", settings.sources.baseUrl, settings.profile);
  return new PetstoreError(
    error.message,
    EXIT.NETWORK,
    `the base URL ${baseUrl} is ${source}: check its host name, ${host}`,
  );
}

/** `transport` replaces node:http (in-process tests). */
export type FactoryDeps = { io: IO; env: NodeJS.ProcessEnv } & Pick<
  ClientOptions,
  "transport" | "now" | "sleep" | "random"
>;

/** `client` with `wrap` around the promise of each of its calls. */
function wrapCalls(client: PetstoreClient, wrap: (call: Promise<unknown>) => Promise<unknown>) {
  return new Proxy(client, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => wrap(value.apply(target, args) as Promise<unknown>);
    },
  });
}

export type Factory = ReturnType<typeof createFactory>;

export function createFactory(deps: FactoryDeps) {
  // The test doubles (transport, sleep, random) go to the client as they are.
  const { io, env, ...clientDeps } = deps;
  const now = deps.now ?? Date.now;
  const notices = createRetryNotices(io, now);
  let loaded: LoadedConfig | undefined;
  let warned = false;
  const load = () => (loaded ??= loadConfig(env));

  /**
   * Flags > environment > profile > defaults. A config file that cannot be used
   * is an error only when the run needs it: when flags and environment give the
   * base URL and the key (and name no profile), it is a warning.
   */
  function settings(flags: SettingsFlags, options: SettingsOptions = {}): ResolvedSettings {
    const { config, problem } = load();
    if (problem === undefined) return resolveSettings(flags, env, config, options);
    // auth login replaces a file that is not a config (after a backup), so it needs none.
    if (options.replacingConfig && problem.kind !== "broken") throw problem;
    const resolved = resolveSettings(flags, env, config, { ...options, allowNewProfile: true });
    if (options.replacingConfig) return resolved;
    if (needsConfig(resolved, options)) throw problem;
    if (!warned) {
      warned = true;
      io.stderr.write(
        `warning: ${problem.message}; this run does not need it (flags and environment give the base URL and the key)\n`,
      );
    }
    return resolved;
  }

  /** `settings`, with the profile's key read from the system keyring when it is kept there. */
  async function keyedSettings(flags: SettingsFlags, options?: SettingsOptions) {
    const resolved = settings(flags, options);
    if (resolved.keyring === undefined) return resolved;
    const { readKeyringKey } = await import("../profiles/keyring.js");
    return { ...resolved, apiKey: await readKeyringKey(env, resolved.profile, resolved.keyring) };
  }

  /**
   * How requests reach the base URL (client/proxy-env.ts decides): a proxy variable
   * that cannot be used stops the command here, before any request; with `verbose`, a line
   * on stderr says which proxy, or why none. Undefined for a base URL that is not
   * one (the client refuses it with its own words).
   */
  function route(baseUrl: string, verbose: boolean): ProxyRoute | undefined {
    const base = parseBaseUrl(baseUrl);
    if (!base.ok) return undefined;
    const target = new URL(base.url);
    const found = proxyRoute(target, env);
    const line = verbose && describeRoute(found, target);
    if (line) io.stderr.write(`proxy: ${line}\n`);
    return found;
  }

  return {
    io,
    env,
    now,
    settings,
    keyedSettings,
    /** The stored profiles, read once per run; a config file that cannot be used is an error. */
    config(): StoredConfig {
      const { config, problem } = load();
      if (problem) throw problem;
      return config;
    },
    async updateConfig(change: Parameters<typeof updateConfig>[1], options?: UpdateOptions) {
      const update = await updateConfig(env, change, options);
      if (update.unchecked !== undefined) io.stderr.write(`warning: ${update.unchecked}\n`);
      loaded = { path: update.path, config: update.config };
      return update;
    },
    /**
     * The client for these request flags, with the settings it uses and how the
     * base URL is reached (through which proxy, or direct and why). `options` as
     * for `settings` (auth login checks a key for a profile that may not exist yet).
     */
    async client(request: RequestOptions, options?: SettingsOptions) {
      const resolved = await keyedSettings(request.settings, options);
      const { createClient } = await import("../client/client.js");
      const reach = route(resolved.baseUrl, request.verbose);
      const client = createClient({
        ...clientDeps,
        baseUrl: resolved.baseUrl,
        apiKey: resolved.apiKey,
        timeoutMs: request.timeoutMs,
        retry: request.retry,
        allowInsecure: resolved.allowInsecure,
        now,
        onRetry: notices.onRetry,
        userAgent: `petstore-cli/${VERSION}`,
        proxy: reach,
        debug: request.verbose ? (line) => io.stderr.write(line + "\n") : undefined,
      });
      // A base URL whose host does not exist is explained (explainBaseUrlFailure). The retry
      // countdown ends when the request settles, before the command prints anything: on a
      // shared terminal a spinner line would otherwise run into the data.
      const wrapped = wrapCalls(client, (call) =>
        call
          .catch((error: unknown) => {
            throw explainBaseUrlFailure(error, resolved);
          })
          .finally(notices.stop),
      );
      return { client: wrapped, settings: resolved, route: reach };
    },
    route,
    /**
     * Once the command is over: clears whatever is still on screen (a retry
     * countdown), and warns of a config file whose keys others can read, unless
     * the command wrote it anew (private).
     */
    finish(): void {
      notices.stop();
      if (loaded?.exposed !== undefined) io.stderr.write(`warning: ${loaded.exposed}\n`);
    },
  };
}
