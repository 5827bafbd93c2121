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
