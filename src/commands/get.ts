/** `petstore get <petId>`: GET /pets/{petId}, with the deprecation warning on stderr. */
import type { Deprecation } from "../client/types.js";
import type { Factory } from "./factory.js";
import { chooseOutput, type OutputChoice } from "../output/format.js";
import { loadPalette } from "../output/palette.js";
import { writePets } from "../output/pets.js";
import { validatePetId } from "../schema/validate.js";
import { deprecationMessage, deprecationSilenced } from "./deprecation-warning.js";
import type { OptionValues } from "./fast-parse.js";
import { usageErrorFor } from "./flag-problems.js";
import { outputFlags } from "./option-values.js";
import { requestOptionsFrom, type RequestOptions } from "./request-options.js";
import type { CommandRunner } from "./runner.js";

export interface GetOptions {
  id: bigint;
  output: OutputChoice;
  request: RequestOptions;
}

export function getOptionsFrom(
  petId: string,
  values: OptionValues,
  env: NodeJS.ProcessEnv,
  stdoutIsTTY: boolean,
): GetOptions {
  const id = validatePetId(petId);
  if (!id.ok) throw usageErrorFor(id.problems, { petId: "<petId>" });
  return {
    id: id.value,
    output: chooseOutput(outputFlags(values), stdoutIsTTY),
    request: requestOptionsFrom(values, env),
  };
}

async function warnDeprecated(factory: Factory, deprecation: Deprecation | undefined) {
  if (deprecationSilenced(factory.env)) return;
  const palette = await loadPalette(factory.io, "stderr");
  const message = deprecationMessage(deprecation, factory.now());
  factory.io.stderr.write(`${palette.yellow("warning:")} ${message}\n`);
}

export async function getRun(options: GetOptions, factory: Factory): Promise<void> {
  const { client } = await factory.client(options.request);
  let deprecation: Deprecation | undefined;
  try {
    const result = await client.getPet(options.id);
    deprecation = result.deprecation;
    await writePets(factory.io, { pets: [result.data], raw: result.raw }, options.output);
  } finally {
    await warnDeprecated(factory, deprecation);
  }
}

export const run: CommandRunner = (parsed, factory) =>
  getRun(
    getOptionsFrom(parsed.args[0] ?? "", parsed.options, factory.env, factory.io.stdout.isTTY),
    factory,
  );
