import type { Pet, PetStatus } from "../schema/pet.js";
import type { Column } from "./columns.js";
import type { Palette } from "./palette.js";

const STATUS_COLOURS: Record<PetStatus, keyof Omit<Palette, "enabled">> = {
  available: "green",
  pending: "yellow",
  sold: "dim",
};

function styleStatus(value: string, palette: Palette): string {
  const colour = STATUS_COLOURS[value as PetStatus];
  return colour ? palette[colour](value) : value;
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
