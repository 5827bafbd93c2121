/**
 * `petstore add`: POST /pets with a NewPet from the flags, or from a JSON body
 * (`--file <path>`, `-` for stdin), checked by the shared schema before sending.
 * A POST is never repeated blindly: if its outcome is unknown, the client says
 * so (exit 7) rather than risk adding the pet twice.
 */
import { readFile } from "node:fs/promises";
import { UsageError } from "../errors.js";
import type { Factory } from "./factory.js";
import type { InputStream } from "../io.js";
import { chooseOutput, type OutputChoice } from "../output/format.js";
import { writePets } from "../output/pets.js";
import { stdoutWriteError } from "../output/write-failure.js";
import { JsonSyntaxError, parseJson } from "../schema/json.js";
import type { NewPet } from "../schema/pet.js";
import { validateNewPet } from "../schema/validate.js";
import type { OptionValues } from "./fast-parse.js";
import { usageErrorFor } from "./flag-problems.js";
import { outputFlags, stringOption } from "./option-values.js";
import { requestOptionsFrom, type RequestOptions } from "./request-options.js";
import type { CommandRunner } from "./runner.js";

export interface AddOptions {
  pet: NewPet;
  output: OutputChoice;
  request: RequestOptions;
}

const FIELD_FLAGS = { name: "--name", categoryId: "--category-id", status: "--status" } as const;

/** Decimal digits become an int64 candidate; anything else stays text, for the schema to name. */
function integerOrText(text: string): bigint | string {
  return /^-?[0-9]+$/.test(text) ? BigInt(text) : text;
}

function petFromFlags(values: OptionValues): NewPet {
  const input: Record<string, unknown> = {};
  const name = stringOption(values, "name");
  if (name !== undefined) input.name = name;
  const categoryId = stringOption(values, "categoryId");
  if (categoryId !== undefined) input.categoryId = integerOrText(categoryId);
  const status = stringOption(values, "status");
  if (status !== undefined) input.status = status;
  const pet = validateNewPet(input);
  if (!pet.ok) {
    throw usageErrorFor(pet.problems, FIELD_FLAGS, "or give the whole pet as JSON with --file");
  }
  return pet.value;
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
  io: { stdin: InputStream; stdoutIsTTY: boolean },
): Promise<AddOptions> {
  const output = chooseOutput(outputFlags(values), io.stdoutIsTTY);
  const request = requestOptionsFrom(values, env);
  const file = stringOption(values, "file");
  if (file === undefined) return { pet: petFromFlags(values), output, request };
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
  const { client } = await factory.client(options.request);
  const result = await client.createPet(options.pet);
  const { io } = factory;
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

/** A bulk add's flags: with any of them, `add` reads a file of pets (src/bulk, loaded only then). */
const BULK_FLAGS = [
  "from",
  "format",
  "skipInvalid",
  "ignoreUnknownColumns",
  "results",
  "resume",
  "retryUnknown",
  "concurrency",
];

export const run: CommandRunner = async (parsed, factory) => {
  if (BULK_FLAGS.some((key) => parsed.options[key] !== undefined)) {
    const { runBulkCommand } = await import("./add-from.js");
    await runBulkCommand(parsed.options, factory);
    return;
  }
  await addRun(
    await addOptionsFrom(parsed.options, factory.env, {
      stdin: factory.io.stdin,
      stdoutIsTTY: factory.io.stdout.isTTY,
    }),
    factory,
  );
};
