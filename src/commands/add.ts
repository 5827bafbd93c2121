/**
 * `petstore add`: POST /pets with a NewPet from the flags, or from a JSON body
 * (`--file <path>`, `-` for stdin), checked by the shared schema before sending.
 * At a terminal, the fields the flags leave out are asked for (add-prompts.ts,
 * loaded only then).
 * A POST is never repeated blindly: if its outcome is unknown, the client says
 * so (exit 7) rather than risk adding the pet twice.
 */
import { readFile } from "node:fs/promises";
import { envFlag } from "../env-flag.js";
import { UsageError } from "../errors.js";
import type { Factory } from "./factory.js";
import type { InputStream, IO } from "../io.js";
import { chooseOutput, type OutputChoice } from "../output/output-format.js";
import { writePets } from "../output/pets.js";
import { stdoutWriteError } from "../output/write-failure.js";
import { JsonSyntaxError, parseJson } from "../schema/json.js";
import type { NewPet } from "../schema/pet.js";
import { validateNewPet } from "../schema/validate.js";
import type { OptionValues } from "./fast-parse.js";
import { usageErrorFor } from "./flag-problems.js";
import { outputFlags, stringOption } from "./option-values.js";
import { FIELD_FLAGS, PET_FIELDS, flagsUsageError, petInputFromFlags } from "./pet-flags.js";
import { requestOptionsFrom, type RequestOptions } from "./request-options.js";
import type { CommandRunner } from "./runner.js";
import { BULK_OPTIONS } from "./spec.js";

export interface AddOptions {
  /** The pet to send; or the flags given, the missing fields to be asked for (add-prompts.ts). */
  pet: NewPet | { ask: OptionValues };
  output: OutputChoice;
  request: RequestOptions;
}

function petFromFlags(values: OptionValues): NewPet {
  const given = petInputFromFlags(values);
  const pet = validateNewPet(given);
  if (!pet.ok) throw flagsUsageError(pet.problems, given);
  return pet.value;
}

/**
 * Missing fields are asked for only with stdin and stderr on a terminal that can
 * redraw a prompt (not TERM=dumb), and never with --no-prompt or PETSTORE_NO_PROMPT
 * (any value but an "off" one): a script gets the usage error at once and never
 * hangs. The cheap checks come first.
 */
function asksAtTerminal(values: OptionValues, env: NodeJS.ProcessEnv, io: IO): boolean {
  return (
    PET_FIELDS.some((field) => values[field] === undefined) &&
    values.prompt !== false &&
    envFlag(env, "PETSTORE_NO_PROMPT") === false &&
    env.TERM !== "dumb" &&
    io.promptStreams !== undefined &&
    io.stderr.isTTY &&
    io.stdin.isTTY
  );
}

async function readBody(path: string, stdin: InputStream): Promise<string> {
  if (path === "-") return stdin.readAll();
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`--file ${path} cannot be read (${reason})`);
  }
}

function petFromJson(text: string, source: string): NewPet {
  let json;
  try {
    json = parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      throw new UsageError(`${source} is not valid JSON: ${error.message}`);
    }
    throw error;
  }
  const pet = validateNewPet(json);
  if (!pet.ok) {
    const fields = Object.fromEntries(pet.problems.map((p) => [p.field, `${source}: ${p.field}`]));
    throw usageErrorFor(pet.problems, fields, '{"name": "Rex", "categoryId": 1} is a valid body');
  }
  return pet.value;
}

export async function addOptionsFrom(
  values: OptionValues,
  env: NodeJS.ProcessEnv,
  io: IO,
): Promise<AddOptions> {
  const output = chooseOutput(outputFlags(values), io.stdout.isTTY);
  const request = requestOptionsFrom(values, env);
  const file = stringOption(values, "file");
  if (file === undefined) {
    const pet = asksAtTerminal(values, env, io) ? { ask: values } : petFromFlags(values);
    return { pet, output, request };
  }
  const mixed = Object.entries(FIELD_FLAGS).filter(([key]) => values[key] !== undefined);
  if (mixed.length > 0) {
    throw new UsageError(
      `--file gives the whole pet; it conflicts with ${mixed.map(([, flag]) => flag).join(", ")}`,
    );
  }
  const source = file === "-" ? "the JSON on stdin" : `the JSON in ${file}`;
  return { pet: petFromJson(await readBody(file, io.stdin), source), output, request };
}

export async function addRun(options: AddOptions, factory: Factory): Promise<void> {
  const { client, settings } = await factory.client(options.request);
  const { io } = factory;
  let pet = options.pet;
  if ("ask" in pet) {
    const { askForPet } = await import("./add-prompts.js");
    pet = await askForPet(pet.ask, settings, io, options.request.verbose);
  }
  const result = await client.createPet(pet);
  if (result.unreadable !== undefined) {
    io.stderr.write(
      `warning: ${result.unreadable}; the pet was added as pet ${result.data.id}, the id its Location header names; the other fields shown are those sent\n`,
    );
  }
  await writePets(io, { pets: [result.data], raw: result.raw }, options.output);
  // The pet exists now: if its id cannot reach stdout, stderr is the only place left for it.
  const failure = await io.stdout.settle();
  if (failure) {
    const id = result.data.id.toString();
    throw stdoutWriteError(
      failure,
      `pet ${id} was added, but `,
      `it is pet ${id}; do not add it again`,
    );
  }
}

export const run: CommandRunner = async (parsed, factory) => {
  // With any bulk flag, `add` reads a file of pets (src/bulk, loaded only then).
  if (Object.keys(BULK_OPTIONS).some((key) => parsed.options[key] !== undefined)) {
    const { runBulkCommand } = await import("./add-from.js");
    await runBulkCommand(parsed.options, factory);
    return;
  }
  await addRun(await addOptionsFrom(parsed.options, factory.env, factory.io), factory);
};
