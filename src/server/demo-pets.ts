/**
 * Demo pets for `serve --seed <n>`: names people give animals, a handful of
 * categories weighted as in a shelter, and a status mix where most animals are
 * available. Deterministic for a given seed, so a seeded fixture is reproducible.
 */
import { PET_STATUSES, type Pet } from "../schema/pet.js";
import { seededRandom } from "./seeded-random.js";

const NAMES = (
  "Bella Max Luna Charlie Lucy Cooper Daisy Milo Bailey Rocky Sadie Buddy Molly Bear " +
  "Stella Tucker Lola Duke Zoe Oliver Coco Leo Ruby Jack Rosie Teddy Penny Winston Nala " +
  "Loki Pepper Ziggy Maple Oscar Willow Simba Hazel Finn Olive Gus Cleo Thor Ginger Murphy " +
  "Biscuit Shadow Pumpkin Jasper Mochi Hank Juniper Bruno Poppy Archie Tilly Ollie Kiwi " +
  "Rex Nova Ace Smokey Misty Felix Tigger Sunny Bandit Peanut Marley Scout Sasha"
).split(" ");

/** Weights out of 100 of the categories 1 dogs, 2 cats, 3 rabbits, 4 birds, 5 reptiles. */
const CATEGORY_WEIGHTS = [42, 34, 11, 9, 4];
/** Weights out of 100 of PET_STATUSES: available, pending, sold. */
const STATUS_WEIGHTS = [62, 14, 24];

/** The index `roll` (0 to 1) falls on. */
function weighted(weights: readonly number[], roll: number): number {
  let left = roll * 100;
  const index = weights.findIndex((weight) => (left -= weight) < 0);
  return index === -1 ? weights.length - 1 : index;
}

/** `count` pets with ids 1..count. */
export function demoPets(count: number): Pet[] {
  const next = seededRandom(1);
  const pets: Pet[] = [];
  for (let i = 1; i <= count; i++) {
    pets.push({
      id: BigInt(i),
      name: NAMES[Math.floor(next() * NAMES.length)]!,
      categoryId: BigInt(weighted(CATEGORY_WEIGHTS, next()) + 1),
      status: PET_STATUSES[weighted(STATUS_WEIGHTS, next())],
    });
  }
  return pets;
}
