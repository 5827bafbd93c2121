/**
 * Field text made safe for line-oriented output. A pet name is data from the
 * service: a tab or newline in it would split a TSV row, an escape sequence
 * printed to a terminal could rewrite the screen, and a bidirectional control
 * (U+202E and its kin) could show a name's characters in another order than
 * they are. Control characters become visible backslash escapes; only TSV
 * escapes the backslash too, so a script can undo the escaping exactly.
 */
import { BIDI_CONTROLS as BIDI, TERMINAL_CONTROLS } from "../schema/control-characters.js";

const CONTROL = new RegExp(`[${TERMINAL_CONTROLS}]`, "g");

function escapeControl(ch: string): string {
  switch (ch) {
    case "\t":
      return "\\t";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    default: {
      const code = ch.charCodeAt(0);
      return code <= 0xff
        ? "\\x" + code.toString(16).padStart(2, "0")
        : "\\u" + code.toString(16).padStart(4, "0");
    }
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
const CSV_CONTROL = new RegExp(`[\u0000-\u0008\u000b-\u001f\u007f-\u009f${BIDI}]`, "g");

/** For text whose tabs and line feeds are data (a CSV field, a string `--jq` prints): other controls escaped. */
export function dataText(text: string): string {
  return text.replace(CSV_CONTROL, escapeControl);
}

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
  let field = dataText(text);
  const formula = !(options.integer && INTEGER.test(text)) && FORMULA_START.test(text);
  if (formula) field = "'" + field;
  return formula || /[",\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;
}

/** C1 controls (U+0080 to U+009F; U+009B alone is a terminal's CSI) and the bidirectional ones. */
const JSON_CONTROL = new RegExp(`[\u0080-\u009f${BIDI}]`, "g");

/**
 * JSON text for stdout, with C1 and bidirectional controls written as `\u` escapes
 * (JSON.stringify and the service leave them raw). In valid JSON they can only
 * be inside strings, where the escape stands for the same character: the value
 * read back is unchanged.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(JSON_CONTROL, (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"));
}
