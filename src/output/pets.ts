/**
 * Writes pets to stdout in the chosen rendering. JSON is the service's own text:
 * ids above 2^53 pass through digit for digit (the response is never rebuilt from
 * doubles). Only the table path loads chalk and cli-table3.
 */
import type { IO } from "../io.js";
import { parseJson, stringifyJson } from "../schema/json.js";
import { petToJson, type Pet } from "../schema/pet.js";
import type { OutputChoice } from "./output-format.js";
import { PET_COLUMNS } from "./pet-columns.js";
import { escapeJsonControls } from "./text-escape.js";
import { writeColumns } from "./write-rows.js";

export interface PetsToWrite {
  pets: readonly Pet[];
  /** The response body exactly as the service sent it: a Pet, or an array of them. */
  raw: string;
}

/**
 * JSON as sent; indented for a person on a terminal, values unchanged either way
 * (C1 and bidirectional controls escaped, see escapeJsonControls).
 */
function jsonText(raw: string, forTerminal: boolean): string {
  const text = forTerminal ? stringifyJson(parseJson(raw), 2) : raw.trim();
  return escapeJsonControls(text) + "\n";
}

export async function writePets(io: IO, data: PetsToWrite, choice: OutputChoice): Promise<void> {
  const { pets, raw } = data;
  switch (choice) {
    case "ids":
      io.stdout.write(pets.map((pet) => pet.id.toString() + "\n").join(""));
      return;
    case "json":
      io.stdout.write(jsonText(raw, io.stdout.isTTY));
      return;
    case "ndjson":
      io.stdout.write(escapeJsonControls(pets.map((pet) => petToJson(pet) + "\n").join("")));
      return;
    default:
      return writeColumns(io, pets, PET_COLUMNS, choice);
  }
}
