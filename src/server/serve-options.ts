/**
 * From the flags of `petstore serve` (strings, as commander hands them over) and
 * the environment to `startServer` options: each flag is read into its option
 * and the options' own schema (options.ts) checks them, so a flag takes exactly
 * what its option takes. Every problem is a ServerConfigError whose message
 * names the flag or variable, in the flag's own syntax where it has one.
 */
import { readWholeNumber } from "../schema/whole-number.js";
import { isLoopback } from "./admin/access.js";
import { describeIssue } from "./check.js";
import { readGivenFile, ServerConfigError } from "./config-error.js";
import { MAX_FAULT_SEED, MAX_LATENCY_MS } from "./faults.js";
import { MAX_BAN_SECONDS, START_OPTIONS } from "./options.js";
import { ADMIN_TOKEN_VARIABLE, KEYS_VARIABLE } from "./serve-defaults.js";
import { planTls, type TlsFlags } from "./tls/server-tls.js";

/**
 * The flags that set a value: the option it goes to, how its text is read as a
 * candidate value (the text itself when it cannot be), and its words where its
 * syntax is not the option's.
 */
const VALUE_FLAGS = {
  file: [["file"], (text) => text.trim() && text],
  host: [["host"], (text) => text.trim()],
  port: [["port"], readWholeNumber],
  seed: [["seed"], readWholeNumber],
  latency: [
    ["faults", "latencyMs"],
    (text) => {
      const match = /^\s*([0-9]{1,6})(?:\s*-\s*([0-9]{1,6}))?\s*$/.exec(text);
      return match ? { min: Number(match[1]), max: Number(match[2] ?? match[1]) } : text;
    },
    `must be <ms> or <min>-<max> with 0 <= min <= max <= ${MAX_LATENCY_MS}`,
  ],
  failRate: [
    ["faults", "failRate"],
    (text) => (/^\s*(?:[0-9]+\.?[0-9]*|\.[0-9]+)\s*$/.test(text) ? Number(text) : text),
  ],
  failMode: [["faults", "failMode"], (text) => text.trim().toLowerCase()],
  faultSeed: [
    ["faults", "seed"],
    readWholeNumber,
    `must be an integer from 0 to ${MAX_FAULT_SEED}`,
  ],
  banAfter: [["ban", "banAfter"], readWholeNumber],
  banSeconds: [
    ["ban", "banMs"],
    (text) => readWholeNumber(text) * 1000,
    `must be an integer from 0 to ${MAX_BAN_SECONDS}`,
  ],
  maxConnections: [["maxConnections"], readWholeNumber],
  journalSize: [["journalSize"], readWholeNumber],
  sunset: [["sunset"], (text) => text.trim()],
} satisfies Record<string, [string[], (text: string) => unknown, string?]>;

/** The flags as commander hands them over: strings, lists and switches. */
export type ServeFlags = TlsFlags &
  Partial<Record<keyof typeof VALUE_FLAGS, string>> & {
    file: string;
    /** `--key`, given once or more. */
    key?: string[];
    keysFile?: string;
    printEnv?: boolean;
    quiet?: boolean;
    preferCode?: boolean;
    /** `--cors <origins>` gives the list; `--no-cors` is false. */
    cors?: string | false;
    adminToken?: string;
  };

/** `failRate` is `--fail-rate`. */
const flagName = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** Far more than any list of keys a fake needs; a larger file is not one. */
const MAX_KEYS_FILE_BYTES = 1024 * 1024;

/**
 * The key specs of `--key` and `--keys-file` (one per line; blank lines and `#`
 * comments skipped) together, each with where it came from for messages; the
 * environment variable's (comma-separated) only when neither flag gives a key
 * (flags over environment, as for the client's settings).
 */
function keySpecs(flags: ServeFlags, env: NodeJS.ProcessEnv): [spec: string, where: string][] {
  const specs = (flags.key ?? []).map((spec): [string, string] => [spec, "--key"]);
  if (flags.keysFile !== undefined) {
    const label = `--keys-file ${flags.keysFile}`;
    const text = readGivenFile(flags.keysFile, label, "a keys file", MAX_KEYS_FILE_BYTES, "utf8");
    text.split(/\r?\n/).forEach((line, index) => {
      const spec = line.replace(/#.*$/, "").trim();
      if (spec !== "") specs.push([spec, `${flags.keysFile} line ${index + 1}`]);
    });
  }
  if (specs.length > 0) return specs;
  const listed = env[KEYS_VARIABLE]?.split(",") ?? [];
  return listed.filter((spec) => spec.trim() !== "").map((spec) => [spec, KEYS_VARIABLE]);
}

/**
 * The options, with the key made up because none was given (the person must be
 * told it) and the self-signed certificate given with --tls-cert, which clients
 * may trust directly (`trustFile`).
 */
export function planServe(flags: ServeFlags, env: NodeJS.ProcessEnv) {
  if (flags.failMode !== undefined && flags.failRate === undefined) {
    throw new ServerConfigError("--fail-mode needs --fail-rate (the share of requests that fail)");
  }
  const keys = keySpecs(flags, env);
  const { tls, trustFile } = planTls(flags);
  // --admin-token, else the environment variable (which `ps` does not show).
  const [adminToken, tokenFrom] =
    flags.adminToken !== undefined
      ? [flags.adminToken, "--admin-token"]
      : [env[ADMIN_TOKEN_VARIABLE] || undefined, ADMIN_TOKEN_VARIABLE];
  const options: Record<string, unknown> = {
    keys: keys.map(([spec]) => spec),
    quiet: flags.quiet === true,
    preferCode: flags.preferCode === true,
    tls,
    adminToken,
    cors: typeof flags.cors === "string" ? flags.cors.split(",") : flags.cors,
  };
  for (const [flag, [[first, second], read]] of Object.entries(VALUE_FLAGS)) {
    const text = flags[flag as keyof typeof VALUE_FLAGS];
    if (text === undefined) continue;
    if (second === undefined) options[first!] = read(text);
    else options[first!] = { ...(options[first!] as object), [second]: read(text) };
  }
  const parsed = START_OPTIONS.safeParse(options);
  if (parsed.success) {
    // No key given: the options made one up (KeyList), and the person must be told it.
    const generatedKey = keys.length === 0 ? parsed.data.keys[0] : undefined;
    return { options: parsed.data, generatedKey, trustFile };
  }
  const issue = parsed.error.issues[0]!;
  const flag = Object.entries(VALUE_FLAGS).find(([, [path]]) =>
    path.every((key, i) => issue.path[i] === key),
  );
  if (flag === undefined) {
    const keyFrom = keys[issue.path[1] as number]?.[1] ?? "--key";
    const names: Record<string, string> = { keys: keyFrom, adminToken: tokenFrom };
    const name = names[String(issue.path[0])] ?? flagName(String(issue.path[0]));
    throw new ServerConfigError(describeIssue(issue, options, "option", name));
  }
  const [name, [, , rule]] = flag;
  const given = JSON.stringify(flags[name as keyof typeof VALUE_FLAGS]);
  throw new ServerConfigError(`${flagName(name)} ${rule ?? issue.message}; got ${given}`);
}

/** The line `serve` writes about the control plane at start-up. */
export function controlPlaneNote(adminUrl: string, host: string, adminToken?: string) {
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
