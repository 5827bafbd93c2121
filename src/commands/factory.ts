/**
 * What commands need from the world, built lazily (the GitHub CLI's Factory): a
 * command that never sends a request never loads the HTTP client, one that never
 * writes the config never loads the code that writes it. Tests pass their own IO,
 * transport and clock.
 */
import type { Transport } from "../client/transport.js";
import type { PetstoreClient } from "../client/types.js";
import { explainBaseUrlFailure } from "./base-url-failure.js";
import { createRetryNotices } from "./retry-notice.js";
import type { RequestOptions } from "./request-options.js";
import { VERSION } from "./version.js";
import type { IO } from "../io.js";
import {
  type ConfigUpdate,
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

export interface FactoryDeps {
  io: IO;
  env: NodeJS.ProcessEnv;
  /** Replaces node:http (in-process tests). */
  transport?: Transport;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

/** `client` with `wrap` around the promise of each of its calls. */
function wrapCalls(
  client: PetstoreClient,
  wrap: <T>(call: Promise<T>) => Promise<T>,
): PetstoreClient {
  return {
    listPets: (query) => wrap(client.listPets(query)),
    createPet: (pet) => wrap(client.createPet(pet)),
    getPet: (id) => wrap(client.getPet(id)),
    get lastRateLimit() {
      return client.lastRateLimit;
    },
  };
}

export type Factory = ReturnType<typeof createFactory>;

export function createFactory(deps: FactoryDeps) {
  const { io, env } = deps;
  const now = deps.now ?? Date.now;
  const notices = createRetryNotices(io, now);
  let loaded: LoadedConfig | undefined;
  let warned = false;
  let warnedExposed = false;
  const load = () => (loaded ??= loadConfig(env));

  /**
   * Flags > environment > profile > defaults. A config file that cannot be used
   * is an error only when the run needs it: when flags and environment give the
   * base URL and the key (and name no profile), it is a warning.
   */
  function settings(flags: SettingsFlags, options: SettingsOptions = {}): ResolvedSettings {
    const { config, problem } = load();
    if (problem === undefined) return resolveSettings(flags, env, config, options);
    if (options.replacingConfig) {
      if (problem.kind !== "broken") throw problem;
      return resolveSettings(flags, env, config, { ...options, allowNewProfile: true });
    }
    const resolved = resolveSettings(flags, env, config, { ...options, allowNewProfile: true });
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
  async function keyedSettings(
    flags: SettingsFlags,
    options?: SettingsOptions,
  ): Promise<ResolvedSettings> {
    const resolved = settings(flags, options);
    if (resolved.keyring === undefined) return resolved;
    const { readKeyringKey } = await import("../profiles/keyring.js");
    return { ...resolved, apiKey: await readKeyringKey(env, resolved.profile, resolved.keyring) };
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
    async updateConfig(
      change: (config: StoredConfig) => StoredConfig | void,
      options?: UpdateOptions,
    ): Promise<ConfigUpdate> {
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
      const { routeTo } = await import("./proxy-route.js");
      const route = routeTo(resolved.baseUrl, env, request.verbose ? io.stderr : undefined);
      const client = createClient({
        baseUrl: resolved.baseUrl,
        apiKey: resolved.apiKey,
        timeoutMs: request.timeoutMs,
        retry: request.retry,
        allowInsecure: resolved.allowInsecure,
        now,
        onRetry: notices.onRetry,
        userAgent: `petstore-cli/${VERSION}`,
        proxy: route,
        debug: request.verbose ? (line) => io.stderr.write(line + "\n") : undefined,
        transport: deps.transport,
        sleep: deps.sleep,
        random: deps.random,
      });
      // A base URL whose host does not exist is explained (base-url-failure.ts). The retry
      // countdown ends when the request settles, before the command prints anything: on a
      // shared terminal a spinner line would otherwise run into the data.
      const wrapped = wrapCalls(client, (call) =>
        call
          .catch((error: unknown) => {
            throw explainBaseUrlFailure(error, resolved);
          })
          .finally(notices.stop),
      );
      return { client: wrapped, settings: resolved, route };
    },
    /**
     * Once the command is over: clears whatever is still on screen (a retry
     * countdown), and warns of a config file whose keys others can read, unless
     * the command wrote it anew (private).
     */
    finish(): void {
      notices.stop();
      if (loaded?.exposed !== undefined && !warnedExposed) {
        warnedExposed = true;
        io.stderr.write(`warning: ${loaded.exposed}\n`);
      }
    },
  };
}
