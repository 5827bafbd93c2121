/**
 * The generated scripts embed command, flag and value names unquoted; this
 * checks they are plain words, so a future name cannot break (or inject into)
 * a script. Descriptions are quoted separately by each generator.
 */
const PLAIN_WORD = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$|^--?[A-Za-z0-9][A-Za-z0-9-]*$/;

export function plainWords(words: readonly string[]): string {
  for (const word of words) {
    if (!PLAIN_WORD.test(word))
      throw new Error(`not a plain word for a completion script: ${word}`);
  }
  return words.join(" ");
}

/** The flags of a command that take a value. */
export function valueFlags(options: readonly { names: string[]; takesValue: boolean }[]): string[] {
  return options.filter((option) => option.takesValue).flatMap((option) => option.names);
}
