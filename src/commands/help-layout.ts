/**
 * Help that fits the terminal (its width, `COLUMNS`, or 80 when piped), built on
 * commander's Help: descriptions wrap beside their flags while there is room,
 * and go under them, indented, on a narrow terminal; lines break between words
 * only. The text after the options (examples, exit codes, serve's notes) is kept
 * as sections of paragraphs, term/description items and shell commands, laid
 * out at the same width: a command too long for a line continues on the next
 * after a ` \`, as a shell reads it.
 */
import { Help, type Command } from "commander";

/** Narrower than this, a description goes under its term instead of beside it. */
const NARROWEST_DESCRIPTION = 28;
/** Where a description under its term starts. */
const STACKED_INDENT = 6;
/** Terms longer than this (in a section's items) get their description on the next line. */
const WIDEST_ITEM_TERM = 20;

/** A section after the options: a paragraph, then terms and descriptions, then shell commands. */
export interface HelpSection {
  title: string;
  text?: string;
  /** Shown as options are. */
  items?: readonly (readonly [term: string, description: string])[];
  /** Shown after `$ `. */
  commands?: readonly string[];
}

const SECTIONS = new WeakMap<Command, readonly HelpSection[]>();

/** Sections shown after the options of `command` (and only of it, not of its subcommands). */
export function addHelpSections(command: Command, sections: readonly HelpSection[]): void {
  SECTIONS.set(command, [...(SECTIONS.get(command) ?? []), ...sections]);
}

/** The "Examples:" section of a command's help. */
export function addExamples(command: Command, lines: readonly string[]): void {
  addHelpSections(command, [{ title: "Examples", commands: lines }]);
}

const spaces = (n: number) => " ".repeat(n);

/** Each line that is not empty, indented. */
const indented = (text: string, indent: number) => text.replace(/^(?=.)/gm, spaces(indent));

/** A term beside its description while both fit; else the description under it. */
const formatItem: Help["formatItem"] = (term, termWidth, description, helper) => {
  const width = helper.helpWidth ?? 80;
  const column = termWidth + 4;
  const roomBeside = width - column >= NARROWEST_DESCRIPTION;
  if (!description || (roomBeside && helper.displayWidth(term) <= termWidth)) {
    return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
  }
  const indent = roomBeside ? column : STACKED_INDENT;
  return `  ${term}\n${indented(helper.boxWrap(description, width - indent), indent)}`;
};

/**
 * `$ command`, continued with ` \` on as many lines as the width needs: wrapped
 * by commander with room kept for the `  $ ` before and the ` \` after a line.
 */
function formatCommand(line: string, width: number, helper: Help): string {
  const continued = ` \\\n${spaces(STACKED_INDENT)}`;
  return `  $ ${helper.boxWrap(line, width - STACKED_INDENT - 2).replaceAll("\n", continued)}`;
}

function formatSection(section: HelpSection, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  const { text, items = [], commands = [] } = section;
  const lines = [helper.styleTitle(`${section.title}:`)];
  if (text !== undefined) lines.push(indented(helper.boxWrap(text, width - 2), 2));
  const termWidth = Math.min(
    WIDEST_ITEM_TERM,
    Math.max(...items.map(([term]) => helper.displayWidth(term))),
  );
  for (const [term, description] of items) {
    lines.push(helper.formatItem(term, termWidth, description, helper));
  }
  for (const line of commands) lines.push(formatCommand(line, width, helper));
  return lines.join("\n");
}

function formatHelp(this: Help, command: Command, helper: Help): string {
  const text = Help.prototype.formatHelp.call(this, command, helper);
  const sections = SECTIONS.get(command);
  if (sections === undefined) return text;
  const after = sections.map((section) => formatSection(section, helper));
  return `${text}\n${after.join("\n\n")}\n`;
}

/** The help layout of `program` and every command added to it afterwards. */
export function configureHelpLayout(program: Command): void {
  program.configureHelp({
    showGlobalOptions: true,
    minWidthToWrap: NARROWEST_DESCRIPTION,
    formatItem,
    formatHelp,
  });
}
