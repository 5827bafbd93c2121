/**
 * `petstore verdict`: the last step of a CI job that tested an app against
 * `petstore serve`. It reads the fake's GET /__admin/verdict (the fake at
 * PETSTORE_BASE_URL, as `serve --print-env` exported it, or --base-url; the admin
 * token as serve takes it) and prints each violation and warning in words; exit
 * 12 when there is a violation.
 */
import type { Command } from "commander";
import { EXIT, PetstoreError, UsageError } from "../errors.js";
import { ADMIN_TOKEN_VARIABLE, DEFAULT_HOST, DEFAULT_PORT } from "../server/serve-defaults.js";
import type { Factory } from "./factory.js";
import { escapeJsonControls, visibleText } from "../output/text-escape.js";
import { addExamples } from "./help-layout.js";
import { addJsonOption } from "./output-options.js";

interface VerdictFlags {
  baseUrl?: string;
  adminToken?: string;
  json?: boolean;
}

interface Item {
  rule: string;
  key: string | null;
  request: { method: string; path: string; time: string; id: number | null };
  message: string;
  count?: number;
}

export function verdictCommand(program: Command, factory: Factory): void {
  const command = program
    .command("verdict")
    .description("exit 12 when `petstore serve` saw the app under test break the contract")
    .option(
      "--base-url <url>",
      "the fake's base URL (default: PETSTORE_BASE_URL, else the serve default)",
    )
    .option("--admin-token <token>", `the fake's admin token (default: ${ADMIN_TOKEN_VARIABLE})`);
  addJsonOption(command, "print the verdict as the fake gives it").action((flags: VerdictFlags) =>
    verdictRun(flags, factory),
  );
  addExamples(command, [". ./serve.env && petstore verdict"]);
}

/** One item in words: what, when, which request and key, and why. */
function line(kind: string, item: Item): string {
  const { method, path, time, id } = item.request;
  const request = `${method} ${path} at ${time}${id === null ? "" : `, request ${id}`}`;
  const key = item.key === null ? "no valid key" : `key ${item.key}`;
  const where =
    item.count === undefined
      ? `${request}, ${key}`
      : `${item.count} times, the last ${request}, ${key}`;
  // The path is the app's, sent as it chose: shown, never obeyed by the terminal.
  return visibleText(`${kind} ${item.rule}: ${where}: ${item.message}`) + "\n";
}

interface Verdict {
  pass: boolean;
  violations: Item[];
  warnings: Item[];
  omitted: number;
}

function parseVerdict(body: string): Verdict | undefined {
  try {
    const verdict = JSON.parse(body) as Partial<Verdict> | null;
    const lists = [verdict?.violations, verdict?.warnings];
    return typeof verdict?.pass === "boolean" && lists.every(Array.isArray)
      ? ({ omitted: 0, ...verdict } as Verdict)
      : undefined;
  } catch {
    return undefined;
  }
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

async function verdictRun(flags: VerdictFlags, factory: Factory): Promise<void> {
  const base =
    flags.baseUrl ?? factory.env.PETSTORE_BASE_URL ?? `http://${DEFAULT_HOST}:${DEFAULT_PORT}/v1`;
  if (!URL.canParse(base)) throw new UsageError(`--base-url ${JSON.stringify(base)} is not a URL`);
  const url = new URL(base);
  const admin = `${url.origin}${url.pathname.replace(/\/v1\/?$|\/$/, "")}/__admin/verdict`;
  const token = flags.adminToken ?? factory.env[ADMIN_TOKEN_VARIABLE];
  const { getAdmin } = await import("./health-check.js");
  const body = await getAdmin(
    admin,
    token,
    "is the fake started, at PETSTORE_BASE_URL or --base-url?",
  );
  const verdict = parseVerdict(body);
  if (verdict === undefined) {
    throw new PetstoreError(
      `${admin} did not answer with a verdict; is it petstore serve?`,
      EXIT.NETWORK,
    );
  }
  const { stdout } = factory.io;
  if (flags.json === true) stdout.write(`${escapeJsonControls(body)}\n`);
  else {
    for (const item of verdict.violations) stdout.write(line("violation", item));
    for (const item of verdict.warnings) stdout.write(line("warning", item));
  }
  const omitted = verdict.omitted > 0 ? ` (and ${verdict.omitted} more not kept)` : "";
  if (!verdict.pass) {
    throw new PetstoreError(
      `the app under test broke the contract: ${count(verdict.violations.length, "violation")}${omitted}`,
      EXIT.VIOLATIONS,
    );
  }
  if (flags.json !== true) {
    stdout.write(`pass: no violations, ${count(verdict.warnings.length, "warning")}${omitted}\n`);
  }
}
