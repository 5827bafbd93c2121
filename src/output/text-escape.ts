/**
 * Field text made safe for line-oriented output. A pet name is data from the
 * service: a tab or newline in it would split a TSV row, and an escape sequence
 * printed to a terminal could rewrite the screen. Control characters become
 * visible backslash escapes; only TSV escapes the backslash too, so a script can
 * undo the escaping exactly.
 */

// C0 controls, DEL and C1 controls: matching them is the point.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function escapeControl(ch: string): string {
  switch (ch) {
    case "\t":
      return "\\t";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    default:
      return "\\x" + ch.charCodeAt(0).toString(16).padStart(2, "0");
  }
}

/** For a terminal table: control characters shown as escapes, backslashes as they are. */
export function visibleText(text: string): string {
  return text.replace(CONTROL, escapeControl);
}

/** For a TSV field: backslash, tab, newline and other controls escaped, reversibly. */
export function tsvField(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(CONTROL, escapeControl);
}

// What TSV escapes, but tab and line feed: CSV carries them as data (a line feed quoted).
// eslint-disable-next-line no-control-regex
const CSV_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** A cell a spreadsheet would run as a formula (OWASP), or one that starts with the `'` that marks it. */
const FORMULA_START = /^[=+\-@\t\r']/;
const INTEGER = /^-?[0-9]+$/;

/**
 * An RFC 4180 field, safe on a terminal and in a spreadsheet. Control characters
 * other than tab and line feed are escaped as in the table (`\x1b`, `\r`); the
 * backslash is data, as a spreadsheet expects. A text cell that starts with
 * = + - @, a tab or a CR gets a leading `'` and quotes (OWASP's CSV injection
 * advice); one that starts with `'` gets one more, so dropping one leading `'`
 * always gives the text back. An `integer` cell holding an integer is a number,
 * negative or not, and is written as it is.
 */
export function csvField(text: string, options: { integer?: boolean } = {}): string {
  let field = text.replace(CSV_CONTROL, escapeControl);
  const formula = !(options.integer && INTEGER.test(text)) && FORMULA_START.test(text);
  if (formula) field = "'" + field;
  return formula || /[",\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
}
