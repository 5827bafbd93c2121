/**
 * `get` calls GET /pets/{petId}, which the service deprecates: say so on stderr
 * after a pet was found (never on a 404), at most once a day per profile
 * (remembered in the config directory's state file), with the removal date (the
 * Sunset header, else the spec's 5 December 2030), the days left, and what
 * `list --status` can and cannot do instead: the service has no other lookup by
 * id. PETSTORE_NO_DEPRECATION_WARNING=1 silences it for scripts that know.
 */
import type { Deprecation } from "../client/types.js";
import { envFlag } from "../env-flag.js";
import { lastShown, rememberShown } from "../profiles/state-file.js";
import { SUNSET_DATE } from "../schema/deprecation.js";
import { LIMIT_MAX } from "../schema/pet.js";

const SILENCE_VARIABLE = "PETSTORE_NO_DEPRECATION_WARNING";
/** The name of this notice in the state file. */
const NOTICE = "getDeprecation";

const DAY_MS = 24 * 60 * 60 * 1000;
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

function deprecationSilenced(env: NodeJS.ProcessEnv): boolean {
  // Any value but an "off" one silences it: a script that sets it means it.
  return envFlag(env, SILENCE_VARIABLE) !== false;
}

/** "5 December 2030", in UTC like the header. */
function formatDay(date: Date): string {
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

function countdown(sunset: Date, nowMs: number): string {
  const days = Math.ceil((sunset.getTime() - nowMs) / DAY_MS);
  if (days > 1) return `in ${days} days`;
  if (days === 1) return "in 1 day";
  if (days === 0) return "today";
  return `${-days} day${days === -1 ? "" : "s"} ago`;
}

/** The warning text, without the "warning:" label. */
export function deprecationMessage(deprecation: Deprecation | undefined, nowMs: number): string {
  const sunset = deprecation?.sunset ?? new Date(SUNSET_DATE);
  const removal =
    sunset.getTime() > nowMs
      ? `it will be removed on ${formatDay(sunset)} (${countdown(sunset, nowMs)})`
      : `its removal was announced for ${formatDay(sunset)} (${countdown(sunset, nowMs)})`;
  const successor = deprecation?.replacement
    ? `The service names ${deprecation.replacement} as its successor. `
    : "The service offers no other lookup by id. ";
  return (
    `\`petstore get\` uses GET /pets/{petId}, which the service has deprecated: ${removal}. ` +
    successor +
    `\`petstore list --status <status>\` is no replacement: it lists at most ${LIMIT_MAX} pets of one status and cannot page further, so it finds a pet only among those. ` +
    `Shown once a day per profile; ${SILENCE_VARIABLE}=1 hides it.`
  );
}

/**
 * Whether the warning is due for `profile`: not silenced, and not shown in the
 * last day (a date in the future, from a clock set back, does not count).
 */
export function deprecationDue(env: NodeJS.ProcessEnv, profile: string, nowMs: number): boolean {
  if (deprecationSilenced(env)) return false;
  const shown = lastShown(env, NOTICE, profile);
  return shown === undefined || shown > nowMs || nowMs - shown >= DAY_MS;
}

/** Remembers the warning as shown; the reason it could not be, or undefined. */
export function rememberDeprecationShown(
  env: NodeJS.ProcessEnv,
  profile: string,
  nowMs: number,
): Promise<string | undefined> {
  return rememberShown(env, NOTICE, profile, nowMs, nowMs - DAY_MS);
}
