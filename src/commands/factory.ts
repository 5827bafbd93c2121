/**
 * What commands need from the world, built lazily (the GitHub CLI's Factory): a
 * command that never sends a request never loads the HTTP client, one that never
 * writes the config never loads conf. Tests pass their own IO, transport and clock.
 */
import type { ClientOptions, Transport } from "../client/client.js";
import type { PetstoreClient } from "../client/types.js";
import { createRetryNotices } from "./retry-notice.js";
import type { RequestOptions } from "./request-options.js";
import { VERSION } from "./version.js";
import type { IO } from "../io.js";
import { readConfig, updateConfig, type StoredConfig } from "../profiles/config-file.js";
import {
  resolveSettings,
  type ResolvedSettings,
  type ResolveOptions,
  type SettingsFlags,
} from "../profiles/resolve.js";

export interface FactoryDeps {
  io: IO;
  env: NodeJS.ProcessEnv;
  /** Replaces node:http (in-process tests). */
  transport?: Transport;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface ConnectedClient {
  client: PetstoreClient;
  settings: ResolvedSettings;
}

export interface Factory {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  now(): number;
  /** The stored profiles, read once per run. */
  config(): StoredConfig;
  updateConfig(change: (config: StoredConfig) => StoredConfig | void): Promise<StoredConfig>;
  /** Flags > environment > profile > defaults. */
  settings(flags: SettingsFlags, options?: ResolveOptions): ResolvedSettings;
  client(request: RequestOptions): Promise<ConnectedClient>;
  /** Clears whatever is still on screen (a retry countdown) once the command is over. */
  finish(): void;
}

/**
 * The retry countdown ends when the request settles, before the command prints
 * anything: on a shared terminal a spinner line would otherwise run into the data.
 */
function stoppingNotices(client: PetstoreClient, stop: () => void): PetstoreClient {
  return {
    listPets: (query) => client.listPets(query).finally(stop),
    createPet: (pet) => client.createPet(pet).finally(stop),
    getPet: (id) => client.getPet(id).finally(stop),
    get lastRateLimit() {
      return client.lastRateLimit;
    },
  };
}

export function createFactory(deps: FactoryDeps): Factory {
  const { io, env } = deps;
  const now = deps.now ?? Date.now;
  const notices = createRetryNotices(io, now);
  let config: StoredConfig | undefined;

  const factory: Factory = {
    io,
    env,
    now,
    config() {
      config ??= readConfig(env);
      return config;
    },
    async updateConfig(change) {
      config = await updateConfig(env, change);
      return config;
    },
    settings(flags, options) {
      return resolveSettings(flags, env, factory.config(), options);
    },
    async client(request) {
      const settings = factory.settings(request.settings);
      const { createClient } = await import("../client/client.js");
      const options: ClientOptions = {
        baseUrl: settings.baseUrl,
        timeoutMs: request.timeoutMs,
        retry: request.retry,
        allowInsecure: settings.allowInsecure,
        now,
        onRetry: notices.onRetry,
        userAgent: `petstore-cli/${VERSION}`,
      };
      if (settings.apiKey !== undefined) options.apiKey = settings.apiKey;
      if (request.verbose) options.debug = (line) => io.stderr.write(line + "\n");
      if (deps.transport) options.transport = deps.transport;
      if (deps.sleep) options.sleep = deps.sleep;
      if (deps.random) options.random = deps.random;
      return { client: stoppingNotices(createClient(options), notices.stop), settings };
    },
    finish: notices.stop,
  };
  return factory;
}
