/**
 * Demo pets for `serve --seed <n>`: names people give animals, a handful of
 * categories weighted as in a shelter, and a status mix where most animals are
 * available. Deterministic for a given seed, so a seeded fixture is reproducible.
 */
import type { Pet, PetStatus } from "../schema/pet.js";
import { seededRandom } from "./seeded-random.js";

const NAMES = (
  "Bella Max Luna Charlie Lucy Cooper Daisy Milo Bailey Rocky Sadie Buddy Molly Bear " +
  "Stella Tucker Lola Duke Zoe Oliver Coco Leo Ruby Jack Rosie Teddy Penny Winston Nala " +
  "Loki Pepper Ziggy Maple Oscar Willow Simba Hazel Finn Olive Gus Cleo Thor Ginger Murphy " +
  "Biscuit Shadow Pumpkin Jasper Mochi Hank Juniper Bruno Poppy Archie Tilly Ollie Kiwi " +
  "Rex Nova Ace Smokey Misty Felix Tigger Sunny Bandit Peanut Marley Scout Sasha"
).split(" ");

/** 1 dogs, 2 cats, 3 rabbits, 4 birds, 5 reptiles; weights out of 100. */
const CATEGORIES: ReadonlyArray<readonly [bigint, number]> = [
  [1n, 42],
  [2n, 34],
  [3n, 11],
  [4n, 9],
  [5n, 4],
];

const STATUSES: ReadonlyArray<readonly [PetStatus, number]> = [
  ["available", 62],
  ["pending", 14],
  ["sold", 24],
];

function weighted<T>(choices: ReadonlyArray<readonly [T, number]>, roll: number): T {
  let left = roll * 100;
  for (const [value, weight] of choices) {
    if (left < weight) return value;
    left -= weight;
  }
  return choices[choices.length - 1]![0];
}

/** `count` pets with ids 1..count. */
export function demoPets(count: number, seed = 1): Pet[] {
  const next = seededRandom(seed);
  const pets: Pet[] = [];
  for (let i = 1; i <= count; i++) {
    pets.push({
      id: BigInt(i),
      name: NAMES[Math.floor(next() * NAMES.length)]!,
      categoryId: weighted(CATEGORIES, next()),
      status: weighted(STATUSES, next()),
    });
  }
  return pets;
}
