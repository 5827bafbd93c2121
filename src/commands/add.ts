/**
 * `petstore add`: POST /pets with a NewPet from the flags, or from a JSON body
 * (`--file <path>`, `-` for stdin), checked by the shared schema before sending.
 * At a terminal, the fields the flags leave out are asked for (add-prompts.ts,
 * loaded only then).
 * A POST is never repeated blindly: if its outcome is unknown, the client says
 * so (exit 7) rather than risk adding the pet twice.
 */
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { FILES, hintedOption, words } from "../completion/hints.js";
import { envFlag } from "../env-flag.js";
import { UsageError } from "../errors.js";
import { whyUnreadable } from "../files/file-kind.js";
import type { Factory } from "./factory.js";
import type { InputStream, IO } from "../io.js";
import { chooseOutput, type OutputFlags } from "../output/output-format.js";
import { writePets } from "../output/pets.js";
import { stdoutWriteError } from "../output/write-failure.js";
import { parseJson } from "../schema/json.js";
import { PET_STATUSES, type NewPet } from "../schema/pet.js";
import { validateNewPet } from "../schema/validate.js";
import { BULK_OPTIONS } from "./add-from-options.js";
import { addExamples } from "./help-layout.js";
import { addOutputOptions } from "./output-options.js";
import {
  FIELD_FLAGS,
  PET_FIELDS,
  flagsUsageError,
  petInputFromFlags,
  type PetField,
  type PetFlags,
} from "./pet-words.js";
import { addRequestOptions, requestOptionsFrom, type RequestFlags } from "./request-options.js";

/** `prompt` is false with --no-prompt. */
type AddFlags = PetFlags & OutputFlags & RequestFlags & { prompt?: boolean; file?: string };

export function addCommand(program: Command, factory: Factory): void {
  const command = program
    .command("add")
    .description("add a pet from flags or a JSON body (--file), or every pet of a file (--from)")
    .option("-n, --name <name>", "the pet's name")
    .option("-c, --category-id <id>", "its category id, a whole number")
    .addOption(
      hintedOption(
        "-s, --status <status>",
        `${PET_STATUSES.join(", ")} (the service's default if left out)`,
        words(PET_STATUSES),
      ),
    )
    .option(
      "--no-prompt",
      "never ask for a field the flags leave out, even on a terminal (PETSTORE_NO_PROMPT=1)",
    )
    .addOption(
      hintedOption(
        "--file <path>",
        "a JSON NewPet body from this file, or - for stdin (instead of the flags)",
        FILES,
      ),
    );
  for (const option of BULK_OPTIONS) command.addOption(option);
  addOutputOptions(command, {
    output: "; with --from, ndjson only",
    json: "; with --from, one NDJSON line per row's outcome",
    quiet: "; with --from, one per added row, in input order",
  });
  addRequestOptions(command);
  addExamples(command, [
    "petstore add --name Rex --category-id 1 --status available",
    "id=$(petstore add --name Rex --category-id 1 -q)",
    `echo '{"name":"Tom","categoryId":2}' | petstore add --file -`,
    "petstore add --from shelter.csv --results shelter.results",
    "petstore add --from shelter.csv --resume shelter.results",
    "petstore add --from shelter.csv -q > shelter.ids",
  ]);
  command.action(async (flags: AddFlags & Record<string, unknown>) => {
    if (!BULK_OPTIONS.some((option) => flags[option.attributeName()] !== undefined)) {
      return addRun(flags, factory);
    }
    // src/bulk is loaded only then (dist/bulk.cjs).
    await (await import("./add-from.js")).runBulkCommand(flags, factory);
  });
}

function petFromFlags(flags: PetFlags): NewPet {
  const given = petInputFromFlags(flags);
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
function asksAtTerminal(flags: AddFlags, env: NodeJS.ProcessEnv, io: IO): boolean {
  return (
    PET_FIELDS.some((field) => flags[field] === undefined) &&
    flags.prompt !== false &&
    envFlag(env, "PETSTORE_NO_PROMPT") === false &&
    env.TERM !== "dumb" &&
    io.promptStreams !== undefined &&
    io.stderr.isTTY &&
    io.stdin.isTTY
  );
}

async function readBody(path: string, stdin: InputStream): Promise<string> {
  if (path === "-") return (await import("node:stream/consumers")).text(stdin.chunks());
  return readFile(path, "utf8").catch((error: unknown) => {
    throw new UsageError(`--file ${path} cannot be read (${whyUnreadable(error)})`);
  });
}

/** The pet of `--file <path>` (`-` for stdin), which gives the whole pet. */
async function petFromFile(file: string, flags: AddFlags, stdin: InputStream): Promise<NewPet> {
  const mixed = Object.entries(FIELD_FLAGS).filter(([key]) => flags[key as PetField] !== undefined);
  if (mixed.length > 0) {
    throw new UsageError(
      `--file gives the whole pet; it conflicts with ${mixed.map(([, flag]) => flag).join(", ")}`,
    );
  }
  const source = file === "-" ? "the JSON on stdin" : `the JSON in ${file}`;
  const body = await readBody(file, stdin);
  let json;
  try {
    json = parseJson(body);
  } catch (error) {
    // parseJson throws only its JsonSyntaxError.
    throw new UsageError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
  const pet = validateNewPet(json);
  if (!pet.ok) {
    throw new UsageError(
      pet.problems.map((p) => `${source}: ${p.field} ${p.problem}`).join("; "),
      '{"name": "Rex", "categoryId": 1} is a valid body',
    );
  }
  return pet.value;
}

export async function addRun(flags: AddFlags, factory: Factory): Promise<void> {
  const { io, env } = factory;
  const output = chooseOutput(flags, io.stdout.isTTY);
  const request = requestOptionsFrom(flags, env);
  let pet: NewPet | undefined;
  if (flags.file !== undefined) pet = await petFromFile(flags.file, flags, io.stdin);
  else if (!asksAtTerminal(flags, env, io)) pet = petFromFlags(flags);
  const { client, settings } = await factory.client(request);
  pet ??= await (await import("./add-prompts.js")).askForPet(flags, settings, io, request.verbose);
  const result = await client.createPet(pet);
  if (result.unreadable !== undefined) {
    io.stderr.write(
      `warning: ${result.unreadable}; the pet was added as pet ${result.data.id}, the id its Location header names; the other fields shown are those sent\n`,
    );
  }
  await writePets(io, { pets: [result.data], raw: result.raw }, output);
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
