/**
 * The one parser of integer flags, for the CLI (--concurrency, --max-retries)
 * and `serve` (--port, --seed, --fault-seed...): decimal digits, spaces around
 * allowed, within [min, max]. It returns the problem in words; each side wraps
 * it in its own error (a usage error, a server configuration error).
 */
export type WholeNumber = { ok: true; value: number } | { ok: false; problem: string };

/** The number a flag's text spells, or NaN when it is not plain decimal digits. */
export function readWholeNumber(text: string): number {
  const trimmed = text.trim();
  // At most 16 digits: every such number is exact as a double, so a range check is too.
  return /^[0-9]{1,16}$/.test(trimmed) ? Number(trimmed) : NaN;
}

export function wholeNumberFlag(text: string, flag: string, min: number, max: number): WholeNumber {
  const value = readWholeNumber(text);
  if (value >= min && value <= max) return { ok: true, value };
  return {
    ok: false,
    problem: `${flag} must be an integer from ${min} to ${max}; got ${JSON.stringify(text)}`,
  };
}
