/** `petstore list`: GET /pets with the status and limit checked by the shared schema first. */
import type { Command } from "commander";
import { hintedOption, words } from "../completion/hints.js";
import { UsageError } from "../errors.js";
import { chooseOutput, type OutputFlags } from "../output/output-format.js";
import { writePets } from "../output/pets.js";
import {
  LIMIT_DEFAULT,
  LIMIT_MAX,
  LIMIT_MIN,
  PET_STATUSES,
  type ListQuery,
} from "../schema/pet.js";
import { validateListQuery } from "../schema/validate.js";
import type { Factory } from "./factory.js";
import { addExamples } from "./help-layout.js";
import { addOutputOptions } from "./output-options.js";
import { addRequestOptions, requestOptionsFrom, type RequestFlags } from "./request-options.js";

type ListFlags = OutputFlags & RequestFlags & { status?: string; limit?: string };

export function listCommand(program: Command, factory: Factory): void {
  const command = program
    .command("list")
    .description("list pets, optionally only those with one status")
    .addOption(hintedOption("-s, --status <status>", PET_STATUSES.join(", "), words(PET_STATUSES)))
    .option(
      "-L, --limit <n>",
      `at most this many pets, ${LIMIT_MIN} to ${LIMIT_MAX} (${LIMIT_DEFAULT})`,
    )
    .action((flags: ListFlags) => listRun(flags, factory));
  addRequestOptions(addOutputOptions(command));
  addExamples(command, [
    "petstore list --status available",
    "petstore list --limit 100 --json",
    "petstore list -q --status sold | wc -l",
  ]);
}

/**
 * A full page may not be all: say so, as gh does, to a person (stderr on a
 * terminal). The service has no paging, so past LIMIT_MAX nothing more can be listed.
 */
export function pageNote(query: ListQuery): string {
  const shown = `showing the first ${query.limit} pets`;
  if (query.limit < LIMIT_MAX) return `${shown}; \`--limit ${LIMIT_MAX}\` shows up to ${LIMIT_MAX}`;
  const narrow = query.status === undefined ? "; `--status` narrows the list" : "";
  return `${shown}; more may exist, and the service has no paging to list them${narrow}`;
}

export async function listRun(flags: ListFlags, factory: Factory): Promise<void> {
  const { io, env } = factory;
  const params: [string, string][] = [];
  if (flags.limit !== undefined) params.push(["limit", flags.limit]);
  if (flags.status !== undefined) params.push(["status", flags.status]);
  const query = validateListQuery(params);
  if (!query.ok) {
    // The fields are the flags' names: limit and status.
    throw new UsageError(query.problems.map((p) => `--${p.field} ${p.problem}`).join("; "));
  }
  const output = chooseOutput(flags, io.stdout.isTTY);
  const { client } = await factory.client(requestOptionsFrom(flags, env));
  const result = await client.listPets(query.value);
  if (result.data.length === 0 && output === "table") {
    io.stderr.write("no pets match\n");
    return;
  }
  await writePets(io, { pets: result.data, raw: result.raw }, output);
  if (io.stderr.isTTY && result.data.length === query.value.limit) {
    io.stderr.write(`${pageNote(query.value)}\n`);
  }
}
