/** `petstore get <petId>`: GET /pets/{petId}, with the deprecation warning on stderr (once a day per profile). */
import type { Command } from "commander";
import type { Factory } from "./factory.js";
import { chooseOutput, type OutputFlags } from "../output/output-format.js";
import { writePets } from "../output/pets.js";
import { validatePetId } from "../schema/validate.js";
import { UsageError } from "../errors.js";
import { warnDeprecated } from "./deprecation-warning.js";
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
  const id = validatePetId(petId);
  if (!id.ok) throw new UsageError(capitalized(wrongValueSentence("petId", petId, true)));
  const output = chooseOutput(flags, factory.io.stdout.isTTY);
  const request = requestOptionsFrom(flags, factory.env);
  const { client, settings } = await factory.client(request);
  // A 404 (or any failure) throws here: the warning is for pets found, not for errors.
  const result = await client.getPet(id.value);
  await writePets(factory.io, { pets: [result.data], raw: result.raw }, output);
  await warnDeprecated(factory, settings, result.deprecation, request.verbose);
}
