/**
 * An HTTP date (RFC 9110, section 5.6.7) as Unix milliseconds. Every form of it
 * starts with a day name; checking that first keeps Date.parse from reading "12"
 * or "2030" as a date.
 */
export function parseHttpDate(value: string | undefined): number | undefined {
  if (value === undefined || !/^[A-Za-z]{3}/.test(value.trim())) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * The furthest moment from 1970, either way, that a Date can hold (ECMA-262,
 * 21.4.1.22): a moment a header names beyond it is held at it, so every later
 * `new Date(...)` of it is a valid date.
 */
export const MAX_DATE_MS = 8.64e15;

/** `ms` within what a Date can hold (NaN, which no header value gives, as 0). */
export function withinDates(ms: number): number {
  if (Number.isNaN(ms)) return 0;
  return Math.min(MAX_DATE_MS, Math.max(-MAX_DATE_MS, ms));
}
