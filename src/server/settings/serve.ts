/**
 * The settings of `petstore serve` that are also startServer options but have no
 * control-plane body: the request journal's size and the ban policy, each
 * described once (./setting.ts) for its flag and its option.
 */
import * as z from "zod/mini";
import { readWholeNumber } from "../../schema/whole-number.js";
import { setting } from "./setting.js";

export const MAX_JOURNAL_SIZE = 100_000;
const MAX_BAN_AFTER = 1_000_000;
const MAX_BAN_SECONDS = 86_400;

const integer = (min: number, max: number) => z.int().check(z.gte(min), z.lte(max));

export const journalSize = setting({
  schema: integer(0, MAX_JOURNAL_SIZE),
  rules: { "": `must be an integer from 0 (no journal) to ${MAX_JOURNAL_SIZE}` },
  flag: {
    name: "--journal-size",
    rule: `must be an integer from 0 to ${MAX_JOURNAL_SIZE}`,
    read: readWholeNumber,
  },
});

const BAN_AFTER_RULE = `must be an integer from 0 to ${MAX_BAN_AFTER}`;
export const banAfter = setting({
  schema: integer(0, MAX_BAN_AFTER),
  rules: { "": BAN_AFTER_RULE },
  flag: { name: "--ban-after", rule: BAN_AFTER_RULE, read: readWholeNumber },
});

/** The flag counts seconds, the option milliseconds: one schema, read from either. */
export const banMs = setting({
  schema: integer(0, MAX_BAN_SECONDS * 1000),
  rules: { "": `must be an integer of milliseconds from 0 to ${MAX_BAN_SECONDS * 1000}` },
  flag: {
    name: "--ban-seconds",
    rule: `must be an integer from 0 to ${MAX_BAN_SECONDS}`,
    read: (text) => readWholeNumber(text) * 1000,
  },
});
