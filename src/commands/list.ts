/** `petstore list`: GET /pets with the status and limit checked by the shared schema first. */
import type { Factory } from "./factory.js";
import { chooseOutput, type OutputChoice } from "../output/format.js";
import { writePets } from "../output/pets.js";
import type { ListQuery } from "../schema/pet.js";
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

export async function listRun(options: ListOptions, factory: Factory): Promise<void> {
  const { client } = await factory.client(options.request);
  const result = await client.listPets(options.query);
  if (result.data.length === 0 && options.output === "table") {
    factory.io.stderr.write("no pets match\n");
    return;
  }
  await writePets(factory.io, { pets: result.data, raw: result.raw }, options.output);
}

export const run: CommandRunner = (parsed, factory) =>
  listRun(listOptionsFrom(parsed.options, factory.env, factory.io.stdout.isTTY), factory);
