/**
 * `petstore add` at a terminal, as `gh issue create` does it: asks for each field
 * the flags left out (name as free text, category id as a number, status as a
 * choice with `available` preselected), each answer checked by the same schema
 * as the flag and asked again with its reason; then shows the pet it will add,
 * as a person reads it, and the service it goes to (the request itself with
 * --verbose), and asks to confirm (default yes).
 *
 * Loaded only when a prompt is shown (dist/prompts.cjs, with @clack/prompts in
 * it). Keys come from stdin and the prompts are drawn on stderr, so stdout holds
 * only the result (`id=$(petstore add -q)` still prompts). Ctrl-C, Ctrl-D or Esc
 * at a prompt is exit 130, and "no" at the confirmation "Not added." and exit 10
 * (not an error: a code of its own); either way nothing is sent.
 *
 * The library gets the terminal with two corrections (promptTerminal):
 * - End of input cancels, as Ctrl-C does: Ctrl-D (0x04 in raw mode) becomes
 *   Ctrl-C, and stdin ending (Ctrl-D between two prompts, a terminal that went
 *   away) sends one. Left alone, readline closes itself on Ctrl-D, the prompt
 *   never answers, and the process would end with exit 0 and nothing said.
 * - Without colour for stderr (`--no-color`), colour sequences are dropped: the
 *   library colours with util.styleText, which knows NO_COLOR and TERM=dumb but
 *   not the flag. Cursor movement stays, or a prompt could not redraw itself.
 */
import { PassThrough, type Writable } from "node:stream";
import { confirm, isCancel, note, select, text } from "@clack/prompts";
import { DeclinedError, EXIT, PetstoreError } from "../errors.js";
import type { IO } from "../io.js";
import { visibleText } from "../output/text-escape.js";
import { DEFAULT_WIDTH } from "../output/wrap.js";
import type { ResolvedSettings } from "../profiles/resolve.js";
import { stringifyJson } from "../schema/json.js";
import { DEFAULT_PET_STATUS, PET_STATUSES, type NewPet, type PetStatus } from "../schema/pet.js";
import { validateNewPet } from "../schema/validate.js";
import {
  capitalized,
  flagsUsageError,
  integerOrText,
  petInputFromFlags,
  wrongValueSentence,
  type PetField,
  type PetFlags,
} from "./pet-words.js";

/** Valid values for the fields not being checked, so a problem is always the checked field's. */
const PLACEHOLDER = { name: "x", categoryId: 0n };

/**
 * Why the schema refuses one field's value, in a person's words and on one line
 * of the prompt's frame ("The name can't be empty"), or undefined if it is valid.
 */
function fieldProblem(field: PetField, value: unknown, width: number): string | undefined {
  const checked = validateNewPet({ ...PLACEHOLDER, [field]: value });
  if (checked.ok) return undefined;
  const sentence = capitalized(wrongValueSentence(field, value, false));
  // The frame's corner and gap before a prompt's error (`└  `), and one column spare.
  const room = width - 4;
  return sentence.length <= room ? sentence : `${sentence.slice(0, room - 1)}…`;
}

function answered<T>(answer: T): Exclude<T, symbol> {
  if (isCancel(answer)) {
    throw new PetstoreError("cancelled at a prompt; nothing was sent", EXIT.INTERRUPTED);
  }
  return answer as Exclude<T, symbol>;
}

export async function askForPet(
  petFlags: PetFlags,
  settings: ResolvedSettings,
  io: IO,
  verbose: boolean,
): Promise<NewPet> {
  const given = petInputFromFlags(petFlags);
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
  const { close, ...terminal } = promptTerminal(io.promptStreams!(), io.colorEnabled("stderr"));
  const width = io.stderr.columns ?? DEFAULT_WIDTH;
  try {
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
    // The pet as a person reads it, and the service it goes to; the request itself with --verbose.
    const { name, categoryId, status = DEFAULT_PET_STATUS } = pet.value;
    const lines = [
      `Name      ${visibleText(name)}`,
      `Category  ${categoryId}`,
      `Status    ${status}`,
      `Service   ${settings.env}, ${visibleText(settings.baseUrl)}`,
    ];
    note(lines.join("\n"), "New pet", terminal);
    if (verbose) {
      const body = stringifyJson({ name, categoryId, status });
      note(visibleText(body), `POST ${visibleText(settings.baseUrl)}/pets`, terminal);
    }
    const send = answered(await confirm({ ...terminal, message: "Add this pet?" }));
    if (!send) throw new DeclinedError("Not added.");
    return pet.value;
  } finally {
    close();
  }
}

const CTRL_C = 0x03;
const CTRL_D = 0x04;

// SGR sequences only.
// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;

function withoutColour(target: NodeJS.WriteStream): Writable {
  const plain = {
    write: (chunk: string | Uint8Array) => target.write(String(chunk).replace(SGR, "")),
    on: (event: string, listener: () => void) => (target.on(event, listener), plain),
    off: (event: string, listener: () => void) => (target.off(event, listener), plain),
    get columns() {
      return target.columns;
    },
    get rows() {
      return target.rows;
    },
    isTTY: true,
  };
  return plain as unknown as Writable;
}

function promptTerminal(
  streams: { input: NodeJS.ReadStream; output: NodeJS.WriteStream },
  colour: boolean,
) {
  const stdin = streams.input;
  const keys = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: (mode: boolean) => stdin.setRawMode(mode),
  });
  const onData = (chunk: Buffer) => {
    // 0x04 is never part of a UTF-8 sequence: it can only be the key itself.
    keys.write(chunk.map((byte) => (byte === CTRL_D ? CTRL_C : byte)));
  };
  const onEnd = () => keys.write(Buffer.of(CTRL_C));
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  return {
    input: keys,
    output: colour ? streams.output : withoutColour(streams.output),
    /** Stops reading stdin, so the process can end. */
    close() {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.pause();
    },
  };
}
