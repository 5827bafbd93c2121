/**
 * `petstore serve`: its flags and help, and the run of the local fake until a
 * signal stops it. The server itself (src/server) is loaded only when it runs.
 */
import { once } from "node:events";
import { isIPv4, isIPv6 } from "node:net";
import type { Command } from "commander";
import { FILES, hintedOption } from "../completion/hints.js";
import { EXIT, PetstoreError, UsageError } from "../errors.js";
import type { Factory } from "./factory.js";
import { addExamples, addHelpSections } from "./help-layout.js";
import {
  ADMIN_TOKEN_VARIABLE,
  DEFAULT_BAN_POLICY,
  DEFAULT_FILE,
  DEFAULT_HOST,
  DEFAULT_JOURNAL_SIZE,
  DEFAULT_PORT,
  KEYS_VARIABLE,
} from "../server/serve-defaults.js";
import type { ServeFlags } from "../server/serve-options.js";

export function serveCommand(program: Command, factory: Factory): void {
  const command = program
    .command("serve")
    .description("run a local fake of the Pet Store service on a JSON file")
    .addOption(
      hintedOption("--file <path>", "JSON file of pets, created when missing", FILES).default(
        DEFAULT_FILE,
      ),
    )
    .option("--port <n>", "port to listen on; 0 picks a free one", String(DEFAULT_PORT))
    .option("--host <address>", "address to listen on", DEFAULT_HOST)
    .option("--seed <n>", "fill a new file with <n> demo pets")
    .option(
      "--key <spec>",
      "accept this API key, key[:plan[:perMinute/perDay]] (repeatable)",
      (value: string, previous?: string[]) => [...(previous ?? []), value],
    )
    .addOption(hintedOption("--keys-file <path>", "accept the keys listed in this file", FILES))
    .option("--tls", "serve https with a certificate signed by a local CA kept next to --file")
    .addOption(hintedOption("--tls-cert <pem>", "serve https with this certificate (PEM)", FILES))
    .addOption(hintedOption("--tls-key <pem>", "the private key of --tls-cert (PEM)", FILES))
    .option(
      "--print-env",
      "print export lines for PETSTORE_BASE_URL and PETSTORE_API_KEY (and NODE_EXTRA_CA_CERTS)",
    )
    .option("--quiet", "no access log on stderr")
    .option("--latency <ms|min-max>", "delay each pet operation by this many milliseconds")
    .option("--fail-rate <0..1>", "share of pet operations that fail")
    .option(
      "--fail-mode <mode>",
      "how they fail: 503 (the default, with Retry-After: 1), reset (the connection closed " +
        "before the request is processed) or reset-after (processed, then closed unanswered)",
    )
    .option("--fault-seed <n>", "make the sequence of faults repeatable")
    .option(
      "--ban-after <n>",
      "429s a client may earn in one limited period before a ban",
      String(DEFAULT_BAN_POLICY.banAfter),
    )
    .option("--ban-seconds <n>", "length of a ban", String(DEFAULT_BAN_POLICY.banMs / 1000))
    .option(
      "--max-connections <n>",
      "open connections allowed, idle ones closed first (default: 1000, fewer under a low ulimit -n)",
    )
    .option(
      "--cors <origins>",
      "allow only these browser origins, scheme://host[:port],... (default: any origin)",
    )
    .option("--no-cors", "send no CORS headers: browser pages on other origins cannot call it")
    .option(
      "--journal-size <n>",
      "requests kept for GET /__admin/requests; 0 turns the journal off",
      String(DEFAULT_JOURNAL_SIZE),
    )
    .option("--prefer-code", "answer Prism's Prefer: code=S header (400, 401, 404, 429, 500, 503)")
    .option(
      "--sunset <date|now>",
      "remove GET /v1/pets/{petId} (410 Gone) from this ISO 8601 date on (default: 2030-12-05)",
    )
    .option("--admin-token <token>", "require this bearer token on /__admin (needed off loopback)")
    .option(
      "--health-check",
      "do not serve: exit 0 when the fake at --host and --port answers GET /__admin/health",
    )
    .action(async (flags: ServeFlags & { healthCheck?: boolean }) => {
      const server = await import("../server/index.js");
      try {
        await (flags.healthCheck === true ? healthCheck : serve)(flags, factory, server);
      } catch (error) {
        throw asCommandError(error, server);
      }
    });
  addHelpSections(command, [
    {
      title: "Keys",
      text:
        "Plans: free (60/min, 1000/day, the default), " +
        "pro (300/10000), business (1000/100000), enterprise (unlimited unless limits are given, " +
        "e.g. --key ci:enterprise:600/20000). Keys come from --key and --keys-file (one per " +
        `line, # comments), else from ${KEYS_VARIABLE} (comma-separated); with none, a free ` +
        "key is generated and printed on stderr.",
    },
    {
      title: "Control plane",
      text:
        "For test suites; every field is in docs/serve.md (github.com/petstore-cli/petstore-cli). " +
        "GET /__admin/health; POST /__admin/reset (back to the pets at start, durably); " +
        'GET and DELETE /__admin/requests; GET and POST /__admin/clock {"advanceSeconds":N}; ' +
        "GET and PUT /__admin/faults; GET and POST /__admin/keys; DELETE /__admin/keys/<key>; " +
        "GET, POST and DELETE /__admin/next (scripted answers); GET /__admin/verdict; " +
        "GET /__admin/openapi.json. Open without a credential on a loopback --host; on any " +
        `other, off unless --admin-token (or ${ADMIN_TOKEN_VARIABLE}) is given, then ` +
        "Authorization: Bearer <token>.",
    },
  ]);
  addExamples(command, [
    "petstore serve --seed 100 --key dev:pro",
    "petstore serve --port 0 --print-env --quiet > serve.env &",
    "petstore serve --file /tmp/pets.json --latency 50-300 --fail-rate 0.1 --fail-mode reset-after",
  ]);
}

type Server = typeof import("../server/index.js");

async function serve(flags: ServeFlags, factory: Factory, server: Server): Promise<void> {
  const { stdout, stderr } = factory.io;
  const plan = server.planServe(flags, factory.env);
  const running = await server.startServer(plan.options);
  const trustFile = running.tls?.caFile ?? plan.trustFile;
  const made = plan.generatedKey;
  if (made) {
    stderr.write(`petstore serve: no key given; generated a ${made.plan}-plan key: ${made.key}\n`);
  }
  // What a client connects to: loopback, not the wildcard 0.0.0.0 or :: it may listen on.
  const url = clientBaseUrl(running.host, running.port, new URL(running.url).protocol.slice(0, -1));
  stdout.write(
    flags.printEnv ? server.exportLines(url, running.keys[0]!.key, trustFile) : `${url}\n`,
  );
  if (flags.quiet !== true) {
    const everywhere = listensEverywhere(running.host)
      ? ` (listening on every address, ${running.host})`
      : "";
    stderr.write(
      `petstore serve: ${running.store.size} pets from ${flags.file} at ${url}${everywhere}; Ctrl-C stops\n`,
    );
    if (trustFile !== undefined) {
      stderr.write(
        `petstore serve: clients trust its certificate with NODE_EXTRA_CA_CERTS=${trustFile}\n`,
      );
    }
    stderr.write(server.controlPlaneNote(running.adminUrl, running.host, plan.options.adminToken));
  }
  await untilSignalled();
  await running.close();
}

/**
 * `--health-check`: the container image's health check (it has no shell and no curl,
 * so the binary is its own probe). The flags and the environment mean what they mean
 * to the fake being checked, so the check finds it and brings its admin token.
 */
async function healthCheck(flags: ServeFlags, factory: Factory, server: Server): Promise<void> {
  const { options } = server.planServe(flags, factory.env);
  const origin = new URL(clientBaseUrl(options.host!, options.port!)).origin;
  const { getAdmin } = await import("./health-check.js");
  factory.io.stdout.write(`${await getAdmin(`${origin}/__admin/health`, options.adminToken)}\n`);
}

/**
 * The base URL a client on this machine uses to reach `serve`. A wildcard
 * address (`--host 0.0.0.0`, `--host ::`) means "every address" to listen on,
 * but is no address to connect to, and the CLI sends a key over plain http://
 * only to loopback: the loopback address of the same family stands in
 * (127.0.0.1, [::1]). Any other host is printed as given.
 */
export function clientBaseUrl(host: string, port: number, protocol = "http"): string {
  let shown = host;
  if (listensEverywhere(host)) shown = isIPv4(host) ? "127.0.0.1" : "::1";
  return `${protocol}://${isIPv6(shown) ? `[${shown}]` : shown}:${port}/v1`;
}

export function listensEverywhere(host: string): boolean {
  if (isIPv4(host)) return host === "0.0.0.0";
  // Any spelling of the unspecified IPv6 address: ::, ::0, 0:0:0:0:0:0:0:0.
  return isIPv6(host) && new URL(`http://[${host}]`).hostname === "[::]";
}

/**
 * Ctrl-C, SIGTERM (a service manager), SIGHUP (a closed terminal; on Windows, a
 * closed console window, after which Windows ends the process within seconds)
 * and, on Windows, Ctrl-Break stop the server cleanly. A stop that runs no
 * handler (kill -9; TerminateProcess, which Windows uses for a service stop and
 * wine for SIGTERM) loses nothing acknowledged: the write-ahead log was flushed before
 * each 201, and the lock it leaves is taken over at the next start.
 */
async function untilSignalled(): Promise<void> {
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
  if (process.platform === "win32") signals.push("SIGBREAK");
  // The first signal wins; the abort takes the handlers of the others away.
  const stop = new AbortController();
  await Promise.race(signals.map((each) => once(process, each, { signal: stop.signal })));
  stop.abort();
}

/** Bad options and a file that cannot be served are usage errors (exit 2); disk failures are not. */
function asCommandError(error: unknown, server: Server): unknown {
  if (error instanceof server.ServerConfigError || error instanceof server.UnsafeFileError) {
    return new UsageError(error.message);
  }
  if (error instanceof server.StoreError) {
    return error.code === "io"
      ? new PetstoreError(error.message, EXIT.UNEXPECTED)
      : new UsageError(error.message);
  }
  return error;
}
