/**
 * Pets in the chosen rendering: their columns, and `-q`'s ids. JSON is the
 * service's own text, so ids above 2^53 pass through digit for digit (the
 * response is never rebuilt from doubles).
 */
import type { IO } from "../io.js";
import type { Pet, PetStatus } from "../schema/pet.js";
import type { Column } from "./columns.js";
import type { OutputChoice } from "./output-format.js";
import type { Palette, Style } from "./palette.js";
import { writeRows } from "./write-rows.js";

const STATUS_STYLES: Record<PetStatus, Style> = {
  available: "green",
  pending: "yellow",
  sold: "dim",
};

function styleStatus(value: string, palette: Palette): string {
  const style = STATUS_STYLES[value as PetStatus];
  return style ? palette[style](value) : value;
}

/** The fields of a Pet in spec order; an absent status is an empty field. */
export const PET_COLUMNS: readonly Column<Pet>[] = [
  { key: "id", label: "ID", value: (pet) => pet.id.toString(), integer: true },
  { key: "name", label: "NAME", value: (pet) => pet.name, shrinkable: true },
  {
    key: "categoryId",
    label: "CATEGORY",
    value: (pet) => pet.categoryId.toString(),
    integer: true,
  },
  { key: "status", label: "STATUS", value: (pet) => pet.status ?? "", style: styleStatus },
];

export interface PetsToWrite {
  pets: readonly Pet[];
  /** The response body exactly as the service sent it: a Pet, or an array of them. */
  raw: string;
}

export async function writePets(io: IO, data: PetsToWrite, choice: OutputChoice): Promise<void> {
  const { pets, raw } = data;
  if (choice === "ids") {
    io.stdout.write(pets.map((pet) => pet.id.toString() + "\n").join(""));
    return;
  }
  return writeRows(io, { rows: pets, columns: PET_COLUMNS, raw }, choice);
}
