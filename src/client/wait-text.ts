/**
 * Waits in the units a person reads: "12 s" up to a minute, then "4 min 5 s",
 * then "12 h 32 min", with the moment as a UTC clock time ("at 00:00 UTC")
 * once the wait is longer than a minute; and which rate-limit window a reset
 * belongs to. Pure: the clock is passed in. Total: any number gives a text
 * (a moment beyond what a Date holds is shown as the last one it holds).
 */
import { withinDates } from "./headers.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const YEAR_MS = 365 * DAY_MS;

/** Rounded up, so that a wait is never announced shorter than it is. */
export function formatWait(ms: number): string {
  const seconds = Math.max(0, Math.ceil(withinDates(ms) / 1000));
  if (seconds <= 60) return `${seconds} s`;
  if (seconds < 3600) {
    const rest = seconds % 60;
    const minutes = `${Math.floor(seconds / 60)} min`;
    return rest === 0 ? minutes : `${minutes} ${rest} s`;
  }
  const minutes = Math.ceil(seconds / 60);
  const rest = minutes % 60;
  const hours = `${Math.floor(minutes / 60)} h`;
  return rest === 0 ? hours : `${hours} ${rest} min`;
}

const MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(" ");
const two = (n: number) => String(n).padStart(2, "0");

/**
 * "00:00 UTC", "13:05:07 UTC"; with the day ("on 24 Nov") when it is a day or more
 * away, and the year too ("on 24 Nov 2031") when it is a year or more away.
 */
export function clockTime(atMs: number, nowMs: number): string {
  const at = new Date(Math.round(withinDates(atMs) / 1000) * 1000);
  const seconds = at.getUTCSeconds();
  let text = `${two(at.getUTCHours())}:${two(at.getUTCMinutes())}`;
  if (seconds !== 0) text += `:${two(seconds)}`;
  text += " UTC";
  if (atMs - nowMs >= DAY_MS) text += ` on ${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]}`;
  if (atMs - nowMs >= YEAR_MS) text += ` ${at.getUTCFullYear()}`;
  return text;
}

/** The moment as ISO 8601 ("2030-11-05T00:00:00.000Z"), for any number. */
export function isoTime(atMs: number): string {
  return new Date(withinDates(atMs)).toISOString();
}

/** "12 s"; past a minute "12 h 32 min (at 00:00 UTC)". */
export function waitUntil(atMs: number, nowMs: number): string {
  const ms = atMs - nowMs;
  return ms <= MINUTE_MS ? formatWait(ms) : `${formatWait(ms)} (at ${clockTime(atMs, nowMs)})`;
}

/**
 * Which window a reset at `resetAt` closes. The service's headers describe the
 * window that binds first, but do not name it: a reset at most a minute away is
 * the minute window's; one further away, at a UTC midnight, the day window's
 * (the spec's plans count per minute and per day); anything else is unknown.
 */
export type RateWindow = "minute" | "day";

export function windowOf(resetAt: number, nowMs: number): RateWindow | undefined {
  const ms = resetAt - nowMs;
  if (ms <= MINUTE_MS) return "minute";
  if (resetAt % DAY_MS === 0) return "day";
  return undefined;
}
