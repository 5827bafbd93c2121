/** `petstore get <petId>`: GET /pets/{petId}, with the deprecation warning on stderr (once a day per profile). */
import type { Deprecation } from "../client/types.js";
import type { Factory } from "./factory.js";
import { chooseOutput, type OutputChoice } from "../output/output-format.js";
import { loadPalette } from "../output/palette.js";
import { writePets } from "../output/pets.js";
import { textWidth } from "../output/wrap.js";
import type { ResolvedSettings } from "../profiles/resolve.js";
import { validatePetId } from "../schema/validate.js";
import { UsageError } from "../errors.js";
import {
  deprecationDue,
  deprecationLines,
  LABEL,
  rememberDeprecationShown,
} from "./deprecation-warning.js";
import type { OptionValues } from "./fast-parse.js";
import { capitalized, wrongValueSentence } from "./pet-words.js";
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
  if (!id.ok) throw new UsageError(capitalized(wrongValueSentence("petId", petId, true)));
  return {
    id: id.value,
    output: chooseOutput(outputFlags(values), stdoutIsTTY),
    request: requestOptionsFrom(values, env),
  };
}

/** After the pet is shown: at most once a day per profile; failing to remember it fails nothing. */
async function warnDeprecated(
  factory: Factory,
  settings: ResolvedSettings,
  deprecation: Deprecation | undefined,
  verbose: boolean,
) {
  const { env, io } = factory;
  const { profile } = settings;
  const now = factory.now();
  if (!deprecationDue(env, profile, now)) return;
  const palette = await loadPalette(io, "stderr");
  const width = textWidth(io.stderr, env);
  const text = deprecationLines(deprecation, now, settings.baseUrl, width).join("\n");
  io.stderr.write(`${palette.yellow(LABEL)}${text.slice(LABEL.length)}\n`);
  const problem = await rememberDeprecationShown(env, profile, now);
  if (problem !== undefined && verbose) {
    io.stderr.write(`could not remember that the warning was shown (${problem}); it shows again\n`);
  }
}

export async function getRun(options: GetOptions, factory: Factory): Promise<void> {
  const { client, settings } = await factory.client(options.request);
  // A 404 (or any failure) throws here: the warning is for pets found, not for errors.
  const result = await client.getPet(options.id);
  await writePets(factory.io, { pets: [result.data], raw: result.raw }, options.output);
  await warnDeprecated(factory, settings, result.deprecation, options.request.verbose);
}

export const run: CommandRunner = (parsed, factory) =>
  getRun(
    getOptionsFrom(parsed.args[0] ?? "", parsed.options, factory.env, factory.io.stdout.isTTY),
    factory,
  );
