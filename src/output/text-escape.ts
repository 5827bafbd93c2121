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

/** An RFC 4180 field: quoted when it holds a comma, quote, CR or LF; the data itself is kept. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
