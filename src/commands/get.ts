/**
 * `petstore get <petId>`: GET /pets/{petId}, which the service deprecates: it says
 * so on stderr after a pet was found (never on a 404), at most once a day per
 * profile (remembered in the config directory's state file), with the removal
 * date (the Sunset header, else the spec's 5 December 2030), the days left, and
 * what to use instead, in two lines at most. PETSTORE_NO_DEPRECATION_WARNING=1
 * silences it for scripts that know.
 */
import type { Command } from "commander";
import type { Deprecation } from "../client/types.js";
import { envFlag } from "../env-flag.js";
import { loadPalette } from "../output/palette.js";
import { textWidth, wrapWords } from "../output/wrap.js";
import { lastShown, rememberShown } from "../profiles/state-file.js";
import { SUNSET_DATE } from "../schema/deprecation.js";
import { LIMIT_MAX } from "../schema/pet.js";
import type { Factory } from "./factory.js";
import { chooseOutput, type OutputFlags } from "../output/output-format.js";
import { writePets } from "../output/pets.js";
import { validatePetId } from "../schema/validate.js";
import { UsageError } from "../errors.js";
import { addExamples } from "./help-layout.js";
import { addOutputOptions } from "./output-options.js";
import { capitalized, wrongValueSentence } from "./pet-words.js";
import { addRequestOptions, requestOptionsFrom, type RequestFlags } from "./request-options.js";

export type GetFlags = OutputFlags & RequestFlags;

export function getCommand(program: Command, factory: Factory): void {
  const command = program
    .command("get")
    .description("show one pet by id (deprecated by the service, which has no other lookup by id)")
    .argument("<petId>", "the pet's id, a whole number")
    .action((petId: string, flags: GetFlags) => getRun(petId, flags, factory));
  addRequestOptions(addOutputOptions(command));
  addExamples(command, ["petstore get 42", "petstore get 42 --json"]);
}

export async function getRun(petId: string, flags: GetFlags, factory: Factory): Promise<void> {
  const { env, io } = factory;
  const id = validatePetId(petId);
  if (!id.ok) throw new UsageError(capitalized(wrongValueSentence("petId", petId, true)));
  const output = chooseOutput(flags, io.stdout.isTTY);
  const request = requestOptionsFrom(flags, env);
  const { client, settings } = await factory.client(request);
  // A 404 (or any failure) throws here: the warning is for pets found, not for errors.
  const result = await client.getPet(id.value);
  await writePets(io, { pets: [result.data], raw: result.raw }, output);
  // Then the warning, unless silenced (any value but an "off" one: a script that sets it
  // means it) or shown for this profile in the last day (a date in the future, from a clock
  // set back, does not count).
  if (envFlag(env, SILENCE_VARIABLE) !== false) return;
  const { profile } = settings;
  const now = factory.now();
  const shown = lastShown(env, NOTICE, profile);
  if (shown !== undefined && shown <= now && now - shown < DAY_MS) return;
  const palette = await loadPalette(io, "stderr");
  const width = textWidth(io.stderr, env);
  const text = deprecationLines(result.deprecation, now, settings.baseUrl, width).join("\n");
  io.stderr.write(`${palette.yellow(LABEL)}${text.slice(LABEL.length)}\n`);
  // Failing to remember it fails nothing: it shows again.
  const problem = await rememberShown(env, NOTICE, profile, now, now - DAY_MS);
  if (problem !== undefined && request.verbose) {
    io.stderr.write(`could not remember that the warning was shown (${problem}); it shows again\n`);
  }
}

const SILENCE_VARIABLE = "PETSTORE_NO_DEPRECATION_WARNING";
/** The name of this notice in the state file. */
const NOTICE = "getDeprecation";

const DAY_MS = 24 * 60 * 60 * 1000;

function countdown(sunset: Date, nowMs: number): string {
  const days = Math.ceil((sunset.getTime() - nowMs) / DAY_MS);
  if (days > 1) return `in ${days} days`;
  if (days === 1) return "in 1 day";
  if (days === 0) return "today";
  return `${-days} day${days === -1 ? "" : "s"} ago`;
}

const LABEL = "warning:";

/**
 * The warning, `warning: ` first, in at most two lines of `width` (broken
 * between words, so a URL stays whole) where they can hold it: when and what
 * the user can do instead. The longest wording that fits is taken; the
 * shortest one stands when none does. When the service names the list of
 * pets as the successor (as the fake does), that is `petstore list`.
 */
export function deprecationLines(
  deprecation: Deprecation | undefined,
  nowMs: number,
  baseUrl: string,
  width: number,
): string[] {
  const sunset = deprecation?.sunset ?? new Date(SUNSET_DATE);
  const stops = sunset.getTime() > nowMs ? "stops working" : "was to stop working";
  // "5 December 2030", in UTC like the header.
  const day = sunset.toLocaleDateString("en-GB", { dateStyle: "long", timeZone: "UTC" });
  const when = `${LABEL} \`petstore get\` ${stops} on ${day} (${countdown(sunset, nowMs)});`;
  const successor = deprecation?.replacement;
  const list = "`petstore list --status <status>`";
  const actions =
    successor === undefined || successor === `${baseUrl}/pets`
      ? [
          `use ${list} to find pets (up to ${LIMIT_MAX} per status). ${SILENCE_VARIABLE}=1 hides this.`,
          `use ${list} to find pets (up to ${LIMIT_MAX} per status).`,
          `use ${list} to find pets.`,
          "use `petstore list` instead.",
        ]
      : [
          `its successor is ${successor}; ${list} finds pets meanwhile.`,
          `its successor is ${successor}.`,
        ];
  const wordings = actions.map((action) => wrapWords(`${when} ${action}`, width));
  return wordings.find((lines) => lines.length <= 2) ?? wordings.at(-1)!;
}
