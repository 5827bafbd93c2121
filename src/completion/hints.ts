/**
 * What value a flag or argument takes, declared where the flag is declared (as
 * gh's StringEnumFlag does) and read by the completion generator: fixed words,
 * the stored profile names (asked of `petstore __complete profiles`), or files.
 * The hint rides on the commander Option or Argument it belongs to.
 */
import { Option } from "commander";

export type ValueHint =
  { kind: "words"; words: readonly string[] } | { kind: "profiles" } | { kind: "files" };

export const FILES: ValueHint = { kind: "files" };
export const PROFILES: ValueHint = { kind: "profiles" };

export function words(list: readonly string[]): ValueHint {
  return { kind: "words", words: list };
}

const hints = new WeakMap<object, ValueHint>();

/** Attaches `hint` (when given) to a commander Option or Argument; returns it. */
export function withHint<T extends object>(target: T, hint: ValueHint | undefined): T {
  if (hint !== undefined) hints.set(target, hint);
  return target;
}

export function hintOf(target: object): ValueHint | undefined {
  return hints.get(target);
}

/** A commander Option whose value completes as `hint` says. */
export function hintedOption(flags: string, description: string, hint: ValueHint): Option {
  return withHint(new Option(flags, description), hint);
}
