/** The committed scripts under completions/ are what `petstore completion <shell>` prints now. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import type { Command } from "commander";
import { createFactory } from "../../src/commands/factory.js";
import { buildProgram } from "../../src/commands/program.js";
import { complete } from "../../src/completion/complete.js";
import { createTestIO } from "../test-io.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FILES = { bash: "petstore.bash", zsh: "_petstore", fish: "petstore.fish" } as const;

async function generated(shell: string): Promise<string> {
  const io = createTestIO();
  expect(await main(["completion", shell], { io, env: {} })).toBe(0);
  return io.out();
}

describe("completion scripts", () => {
  it.each(Object.entries(FILES))(
    "completions/%s… is current (else: petstore completion %s > completions/…)",
    async (shell, file) => {
      const committed = readFileSync(join(ROOT, "completions", file), "utf8");
      expect(committed).toBe(await generated(shell));
    },
  );

  it("offers every visible command and flag of the program, and no hidden one", () => {
    const program = buildProgram(createFactory({ io: createTestIO(), env: {} }));
    const words = (line: string[]) =>
      complete(program, line, () => []).map((c) => c.split("\t")[0]);
    const walk = (command: Command, path: string[]): void => {
      const visible = command.commands.filter((child) => !child.name().startsWith("__"));
      if (visible.length > 0) {
        // commander adds a `help` command to each command that has subcommands.
        expect(words([...path, ""])).toEqual([...visible.map((child) => child.name()), "help"]);
      }
      const flags = words([...path, "-"]);
      for (const option of command.options.filter((o) => !o.hidden && o.long !== "--version")) {
        expect(flags).toContain(option.long);
      }
      for (const child of visible) walk(child, [...path, child.name()]);
    };
    walk(program, []);
    expect(words([""])).not.toContain("__complete");
  });

  it("rejects an unknown shell with exit 2", async () => {
    const io = createTestIO();
    expect(await main(["completion", "tcsh"], { io, env: {} })).toBe(2);
    expect(io.err()).toContain("<shell> must be one of bash, zsh, fish");
  });
});
