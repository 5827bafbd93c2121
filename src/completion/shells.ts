/** The shells `petstore completion` writes a script for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

export function isShell(name: string): name is Shell {
  return (SHELLS as readonly string[]).includes(name);
}
