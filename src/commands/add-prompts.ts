/**
 * `petstore add` at a terminal, as `gh issue create` does it: asks for each field
 * the flags left out (name as free text, category id as a number, status as a
 * choice with `available` preselected), each answer checked by the same schema
 * as the flag and asked again with its message; then shows the request it will
 * send and asks to confirm (default yes).
 *
 * Loaded only when a prompt is shown (dist/prompts.cjs, with @clack/prompts in
 * it). Keys come from stdin and the prompts are drawn on stderr, so stdout holds
 * only the result (`id=$(petstore add -q)` still prompts). Ctrl-C, Ctrl-D or Esc
 * at a prompt is exit 130, and "no" at the confirmation exit 2 (gh's exit code for
 * a cancellation); either way nothing is sent.
 */
import { confirm, isCancel, note, select, text } from "@clack/prompts";
import { EXIT, PetstoreError, UsageError } from "../errors.js";
import type { IO } from "../io.js";
import { visibleText } from "../output/text-escape.js";
import { DEFAULT_WIDTH } from "../output/wrap.js";
import type { ResolvedSettings } from "../profiles/resolve.js";
import { stringifyJson } from "../schema/json.js";
import { PET_STATUSES, type NewPet, type PetStatus } from "../schema/pet.js";
import { validateNewPet } from "../schema/validate.js";
import type { OptionValues } from "./fast-parse.js";
import { flagsUsageError, integerOrText, petInputFromFlags, type PetField } from "./pet-flags.js";
import { capitalized, wrongValueSentence } from "./pet-words.js";
import { promptTerminal, type PromptTerminal } from "./prompt-terminal.js";

/** Valid values for the fields not being checked, so a problem is always the checked field's. */
const PLACEHOLDER = { name: "x", categoryId: 0n };

/** The frame's corner and gap before a prompt's error: `└  `. */
const FRAME = 3;

/**
 * Why the schema refuses one field's value, in a person's words and on one line
 * of the prompt's frame ("The name can't be empty"), or undefined if it is valid.
 */
function fieldProblem(field: PetField, value: unknown, width: number): string | undefined {
  const checked = validateNewPet({ ...PLACEHOLDER, [field]: value });
  if (checked.ok) return undefined;
  const sentence = capitalized(wrongValueSentence(field, value, false));
  const room = width - FRAME - 1;
  return sentence.length <= room ? sentence : `${sentence.slice(0, room - 1)}…`;
}

function answered<T>(answer: T): Exclude<T, symbol> {
  if (isCancel(answer)) {
    throw new PetstoreError("cancelled at a prompt; nothing was sent", EXIT.INTERRUPTED);
  }
  return answer as Exclude<T, symbol>;
}

export async function askForPet(
  values: OptionValues,
  settings: ResolvedSettings,
  io: IO,
): Promise<NewPet> {
  const given = petInputFromFlags(values);
  // A flag with a bad value is the usage error it is without a terminal: only missing fields are asked.
  const flags = validateNewPet({ ...PLACEHOLDER, ...given });
  if (!flags.ok) throw flagsUsageError(flags.problems, given);
  // Nothing is asked for a request that cannot be sent (the client would say the same after the questions).
  if (settings.apiKey === undefined) {
    throw new PetstoreError(
      "no API key",
      EXIT.AUTH,
      "run `petstore auth login`, or set PETSTORE_API_KEY",
    );
  }

  const terminal = promptTerminal(io.promptStreams!(), io.colorEnabled("stderr"));
  try {
    return await ask(given, settings, terminal, io.stderr.columns ?? DEFAULT_WIDTH);
  } finally {
    terminal.close();
  }
}

async function ask(
  given: Record<string, unknown>,
  settings: ResolvedSettings,
  { input, output }: PromptTerminal,
  width: number,
): Promise<NewPet> {
  const terminal = { input, output };
  const answers: Record<string, unknown> = { ...given };
  if (!("name" in given)) {
    answers.name = answered(
      await text({
        ...terminal,
        message: "Name",
        validate: (value) => fieldProblem("name", value ?? "", width),
      }),
    );
  }
  if (!("categoryId" in given)) {
    answers.categoryId = integerOrText(
      answered(
        await text({
          ...terminal,
          message: "Category id (a whole number)",
          validate: (value) => fieldProblem("categoryId", integerOrText(value ?? ""), width),
        }),
      ),
    );
  }
  if (!("status" in given)) {
    answers.status = answered(
      await select<PetStatus>({
        ...terminal,
        message: "Status",
        options: PET_STATUSES.map((status) => ({ value: status })),
        initialValue: "available",
      }),
    );
  }

  const pet = validateNewPet(answers);
  // Each answer was checked as it was given; this cannot fail, but the schema has the last word.
  if (!pet.ok) throw flagsUsageError(pet.problems, answers);
  const body = { name: pet.value.name, categoryId: pet.value.categoryId, status: pet.value.status };
  note(visibleText(stringifyJson(body)), `POST ${visibleText(settings.baseUrl)}/pets`, terminal);
  const send = answered(await confirm({ ...terminal, message: "Add this pet?" }));
  if (!send) throw new UsageError("not added: declined at the confirmation; nothing was sent");
  return pet.value;
}
