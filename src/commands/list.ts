/** `petstore list`: GET /pets with the status and limit checked by the shared schema first. */
import type { Factory } from "./factory.js";
import { chooseOutput, type OutputChoice } from "../output/output-format.js";
import { writePets } from "../output/pets.js";
import { LIMIT_MAX, type ListQuery } from "../schema/pet.js";
import { validateListQuery } from "../schema/validate.js";
import type { OptionValues } from "./fast-parse.js";
import { usageErrorFor } from "./flag-problems.js";
import { outputFlags, stringOption } from "./option-values.js";
import { requestOptionsFrom, type RequestOptions } from "./request-options.js";
import type { CommandRunner } from "./runner.js";

export interface ListOptions {
  query: ListQuery;
  output: OutputChoice;
  request: RequestOptions;
}

export function listOptionsFrom(
  values: OptionValues,
  env: NodeJS.ProcessEnv,
  stdoutIsTTY: boolean,
): ListOptions {
  const params: [string, string][] = [];
  for (const key of ["limit", "status"] as const) {
    const value = stringOption(values, key);
    if (value !== undefined) params.push([key, value]);
  }
  const query = validateListQuery(params);
  if (!query.ok) throw usageErrorFor(query.problems, { limit: "--limit", status: "--status" });
  return {
    query: query.value,
    output: chooseOutput(outputFlags(values), stdoutIsTTY),
    request: requestOptionsFrom(values, env),
  };
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

export async function listRun(options: ListOptions, factory: Factory): Promise<void> {
  const { client } = await factory.client(options.request);
  const result = await client.listPets(options.query);
  const { io } = factory;
  if (result.data.length === 0 && options.output === "table") {
    io.stderr.write("no pets match\n");
    return;
  }
  await writePets(io, { pets: result.data, raw: result.raw }, options.output);
  if (io.stderr.isTTY && result.data.length === options.query.limit) {
    io.stderr.write(`${pageNote(options.query)}\n`);
  }
}

export const run: CommandRunner = (parsed, factory) =>
  listRun(listOptionsFrom(parsed.options, factory.env, factory.io.stdout.isTTY), factory);
