/**
 * From the flags of `petstore serve` (strings, as commander hands them over) and
 * the environment to `startServer` options. Every problem is a ServerConfigError
 * whose message names the flag or variable.
 */
import { wholeNumberFlag } from "../schema/whole-number.js";
import { readFileSync } from "node:fs";
import { ServerConfigError } from "./config-error.js";
import { MAX_CONNECTIONS_LIMIT } from "./connection-cap.js";
import { parseCorsFlag } from "./cors.js";
import {
  generateKey,
  mergeKeys,
  parseKeySpec,
  parseKeysFile,
  parseKeysList,
  type ApiKeySpec,
} from "./keys.js";
import { ADMIN_TOKEN_PATTERN, ADMIN_TOKEN_RULE, isLoopback } from "./admin/access.js";
import { ADMIN_TOKEN_VARIABLE, KEYS_VARIABLE } from "./serve-defaults.js";
import type { StartServerOptions } from "./server.js";
import { faultsFromFlags } from "./faults.js";
import { banAfter, banMs, journalSize, port, seed } from "./start-options.js";
import { readFlag } from "./settings.js";
import { planTls, type TlsFlags } from "./tls/tls-flags.js";

export interface ServeFlags extends TlsFlags {
  file: string;
  port: string;
  host: string;
  seed?: string;
  key: string[];
  keysFile?: string;
  printEnv?: boolean;
  quiet?: boolean;
  latency?: string;
  failRate?: string;
  failMode?: string;
  faultSeed?: string;
  banAfter?: string;
  banSeconds?: string;
  maxConnections?: string;
  /** `--cors <origins>` gives the list; `--no-cors` is false. */
  cors?: string | false;
  journalSize?: string;
  adminToken?: string;
}

export interface ServePlan {
  options: StartServerOptions & { keys: ApiKeySpec[] };
  /** A key made up because none was given: the person must be told it. */
  generatedKey?: ApiKeySpec;
  /** A self-signed certificate given with --tls-cert, which clients may trust directly. */
  trustFile?: string;
}

function readKeysFile(path: string): ApiKeySpec[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why =
      code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : String(code);
    throw new ServerConfigError(`--keys-file ${path}: cannot read it (${why})`);
  }
  return parseKeysFile(text, path);
}

/**
 * Keys from `--key` and `--keys-file` together; the environment variable only when
 * neither flag gives a key (flags over environment, as for the client's settings).
 */
function resolveKeys(flags: ServeFlags, env: NodeJS.ProcessEnv): ApiKeySpec[] {
  const fromFlags = [
    ...flags.key.map((spec) => parseKeySpec(spec, "--key")),
    ...(flags.keysFile === undefined ? [] : readKeysFile(flags.keysFile)),
  ];
  if (fromFlags.length > 0) return mergeKeys(fromFlags);
  const variable = env[KEYS_VARIABLE];
  return variable === undefined ? [] : mergeKeys(parseKeysList(variable, KEYS_VARIABLE));
}

export function planServe(flags: ServeFlags, env: NodeJS.ProcessEnv): ServePlan {
  const host = flags.host.trim();
  if (host === "") throw new ServerConfigError("--host must not be empty");
  if (flags.file.trim() === "") throw new ServerConfigError("--file must not be empty");
  const faults = faultsFromFlags(flags);
  const keys = resolveKeys(flags, env);
  const generatedKey = keys.length === 0 ? generateKey() : undefined;
  const { tls, trustFile } = planTls(flags);
  const options: ServePlan["options"] = {
    file: flags.file,
    port: readFlag(port, flags.port),
    host,
    keys: generatedKey === undefined ? keys : [generatedKey],
    quiet: flags.quiet === true,
    faults,
    ban: {},
    tls,
  };
  if (flags.seed !== undefined) options.seed = readFlag(seed, flags.seed);
  if (flags.banAfter !== undefined) options.ban!.banAfter = readFlag(banAfter, flags.banAfter);
  if (flags.banSeconds !== undefined) options.ban!.banMs = readFlag(banMs, flags.banSeconds);
  if (flags.maxConnections !== undefined) {
    const cap = wholeNumberFlag(
      flags.maxConnections,
      "--max-connections",
      1,
      MAX_CONNECTIONS_LIMIT,
    );
    if (!cap.ok) throw new ServerConfigError(cap.problem);
    options.maxConnections = cap.value;
  }
  if (flags.cors !== undefined) {
    options.cors = flags.cors === false ? false : parseCorsFlag(flags.cors);
  }
  if (flags.journalSize !== undefined) {
    options.journalSize = readFlag(journalSize, flags.journalSize);
  }
  const adminToken = resolveAdminToken(flags, env);
  if (adminToken !== undefined) options.adminToken = adminToken;
  return { options, generatedKey, trustFile };
}

/** --admin-token, else the environment variable (which `ps` does not show). */
function resolveAdminToken(flags: ServeFlags, env: NodeJS.ProcessEnv): string | undefined {
  const [token, where] =
    flags.adminToken !== undefined
      ? [flags.adminToken, "--admin-token"]
      : [env[ADMIN_TOKEN_VARIABLE], ADMIN_TOKEN_VARIABLE];
  if (token === undefined || (token === "" && where === ADMIN_TOKEN_VARIABLE)) return undefined;
  if (!ADMIN_TOKEN_PATTERN.test(token)) {
    throw new ServerConfigError(`${where} ${ADMIN_TOKEN_RULE}`);
  }
  return token;
}

/** The line `serve` writes about the control plane at start-up. */
export function controlPlaneNote(
  adminUrl: string,
  host: string,
  adminToken: string | undefined,
): string {
  if (adminToken !== undefined) {
    return `petstore serve: control plane at ${adminUrl} (Authorization: Bearer <admin token>)\n`;
  }
  return isLoopback(host)
    ? `petstore serve: control plane at ${adminUrl} (no credential on loopback)\n`
    : `petstore serve: control plane off (--host ${host} is not loopback; --admin-token turns it on)\n`;
}

/**
 * `export NAME='value'` lines for `eval`; single quotes keep `~`, `+` and `=` literal.
 * With `caFile`, a third line points NODE_EXTRA_CA_CERTS at it.
 */
export function exportLines(baseUrl: string, key: string, caFile?: string): string {
  const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;
  const lines = `export PETSTORE_BASE_URL=${quote(baseUrl)}\nexport PETSTORE_API_KEY=${quote(key)}\n`;
  return caFile === undefined ? lines : `${lines}export NODE_EXTRA_CA_CERTS=${quote(caFile)}\n`;
}
