/**
 * `get` calls GET /pets/{petId}, which the service deprecates: say so once per
 * run on stderr, with the removal date (the Sunset header, else the spec's
 * 5 December 2030), the days left and what to use instead.
 * PETSTORE_NO_DEPRECATION_WARNING=1 silences it for scripts that know.
 */
import type { Deprecation } from "../client/types.js";
import { envFlag } from "../env-flag.js";
import { SUNSET_DATE } from "../schema/deprecation.js";

export const SILENCE_VARIABLE = "PETSTORE_NO_DEPRECATION_WARNING";

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

export function deprecationSilenced(env: NodeJS.ProcessEnv): boolean {
  // Any value but an "off" one silences it: a script that sets it means it.
  return envFlag(env, SILENCE_VARIABLE) !== false;
}

/** "5 December 2030", in UTC like the header. */
export function formatDay(date: Date): string {
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
    ? ` (the service names ${deprecation.replacement})`
    : "";
  return (
    `\`petstore get\` uses GET /pets/{petId}, which the service has deprecated: ${removal}. ` +
    `Use \`petstore list --status <status>\` instead${successor}. ` +
    `${SILENCE_VARIABLE}=1 hides this warning.`
  );
}
