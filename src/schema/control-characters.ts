/**
 * The characters a terminal acts on instead of showing, as the body of a regular
 * expression's character class: what the CLI escapes in its output and strips from
 * a service's messages.
 */

/** The bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069): they reorder what is shown. */
export const BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069";

/** C0 and C1 controls, DEL, and the bidirectional controls. */
export const TERMINAL_CONTROLS = `\u0000-\u001f\u007f-\u009f${BIDI_CONTROLS}`;
