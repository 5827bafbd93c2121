/**
 * `petstore add --from <file>` as a command: flags in, a summary on stderr, and
 * an error (hence an exit code, decided in cli.ts) unless every row was added.
 * Loaded only when --from is given (it is the entry of the separate bulk bundle),
 * so plain `add`, `list` and `get` never load any of the bulk code.
 */
import type { OptionValues } from "commander";
import { VERSION } from "./version.js";
import { LIST_CANNOT_TELL } from "../client/response-errors.js";
import { EXIT, PetstoreError } from "../errors.js";
import type { Factory } from "./factory.js";
import { runBulkAdd, type BulkOptions, type BulkReport } from "../bulk/engine.js";
import { bulkOptionsFrom } from "./add-from-options.js";
import { formatCount, formatElapsed } from "../bulk/outcomes.js";
import { stdoutWriteError } from "../output/write-failure.js";

function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

export function summaryLine(report: BulkReport): string {
  const parts = [`${formatCount(report.added)} added`];
  if (report.previouslyAdded > 0) parts.push(`${formatCount(report.previouslyAdded)} added before`);
  parts.push(`${formatCount(report.invalid)} invalid`);
  parts.push(`${formatCount(report.failed)} failed`);
  parts.push(`${formatCount(report.unknown)} outcome unknown`);
  if (report.notSent > 0) parts.push(`${formatCount(report.notSent)} not sent`);
  return `petstore add: ${parts.join(", ")} (${plural(report.rows, "row")} in ${formatElapsed(report.elapsedMs)})`;
}

/** "row 4", "rows 2, 8 and 3 more" */
function rowList(rows: number[], total: number): string {
  const more = total > rows.length ? ` and ${formatCount(total - rows.length)} more` : "";
  return `${total === 1 ? "row" : "rows"} ${rows.toSorted((a, b) => a - b).join(", ")}${more}`;
}

/**
 * What is true of rows whose outcome is unknown: `list` can rarely find them,
 * the results file takes what the user finds, a resume holds them back, and
 * --retry-unknown adds a second pet for each one that was in fact added.
 */
function unknownHint(report: BulkReport, file: string | undefined): string {
  const one = report.unknown === 1;
  const them = one ? "it" : "them";
  const look = `look for ${one ? "the pet" : "these pets"} before sending ${them} again (${LIST_CANNOT_TELL})`;
  if (file === undefined) return look;
  const rest = report.notSent > 0 ? "sends the rows not sent and " : "";
  return `${look}; for each one found, append {"row":N,"outcome":"added","id":ID} to ${file}; then --resume ${file} ${rest}holds the others back; with --retry-unknown it sends ${them} again, adding a second pet for each one that was in fact added`;
}

/** The error that carries the exit code of a run that did not add every row. */
export function incompleteRun(report: BulkReport, options: BulkOptions): PetstoreError {
  const file = report.resultsFile ?? options.results ?? options.resume;
  const resume = file === undefined ? undefined : `--resume ${file}`;
  if (report.unknown > 0) {
    const { stopped, notSent } = report;
    const stop =
      stopped === undefined ? "" : `; ${stopped.message}, ${plural(notSent, "row")} not sent`;
    return new PetstoreError(
      `the outcome of ${plural(report.unknown, "row")} is unknown (${rowList(report.unknownRows, report.unknown)}): ${report.unknown === 1 ? "it was" : "they were"} sent, but no answer came${stop}`,
      EXIT.OUTCOME_UNKNOWN,
      unknownHint(report, file),
    );
  }
  if (report.stopped !== undefined) {
    const { stopped } = report;
    const hint =
      resume === undefined
        ? stopped.hint
        : `${stopped.hint ? `${stopped.hint}; then ` : ""}run the same command with ${resume} to send the rest`;
    return new PetstoreError(
      `${stopped.message}; ${plural(report.notSent, "row")} not sent`,
      report.exitCode,
      hint,
    );
  }
  const refused = report.failed > 0 ? `${plural(report.failed, "row")} refused by the service` : "";
  const invalid = report.invalid > 0 ? `${plural(report.invalid, "invalid row")} skipped` : "";
  return new PetstoreError(
    `not every row was added: ${[invalid, refused].filter(Boolean).join(", ")}`,
    report.exitCode,
    file === undefined
      ? "--results <file> records each row's outcome"
      : `${file} lists each row's outcome`,
  );
}

export async function runBulkCommand(values: OptionValues, factory: Factory): Promise<BulkReport> {
  const { bulk, request } = bulkOptionsFrom(values, factory.env);
  const settings = await factory.keyedSettings(request.settings);
  const { io } = factory;
  const route = factory.route(settings.baseUrl, request.verbose);
  const report = await runBulkAdd(bulk, {
    io,
    settings,
    userAgent: `petstore-cli/${VERSION}`,
    stdin: () => io.stdin.chunks(),
    handleSignals: true,
    proxy: route?.kind === "proxy" ? route.proxy : undefined,
  });
  io.stderr.write(summaryLine(report) + "\n");
  // Ids that could not reach stdout (a full disk) are not lost: the results file has them.
  const failure = bulk.stdout === undefined ? undefined : await io.stdout.settle();
  if (failure !== undefined) {
    const where =
      report.resultsFile === undefined
        ? "run `petstore list` to find the pets added"
        : `each row's outcome and id is in ${report.resultsFile}`;
    if (report.exitCode === EXIT.OK)
      throw stdoutWriteError(failure, "the rows were added, but ", where);
    io.stderr.write(`petstore add: ${stdoutWriteError(failure).message}; ${where}\n`);
  }
  if (report.exitCode !== EXIT.OK) throw incompleteRun(report, bulk);
  return report;
}
