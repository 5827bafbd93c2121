/** The committed scripts under completions/ are what `petstore completion <shell>` prints now. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { createTestIO } from "../../src/io/test-io.js";

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

  it("covers every visible command and flag, and no hidden one", async () => {
    for (const shell of Object.keys(FILES)) {
      const script = await generated(shell);
      for (const word of [
        "list",
        "get",
        "add",
        "login",
        "logout",
        "use",
        "remove",
        "status",
        "category-id",
        "api-key-file",
        "no-retry",
        "available",
        "staging",
        "ndjson",
      ]) {
        expect(script).toMatch(new RegExp(`(^|[\\s"':-])${word}\\b`, "m"));
      }
      expect(script).not.toMatch(/\b__complete\b(?! profiles)/);
    }
  });

  it("rejects an unknown shell with exit 2", async () => {
    const io = createTestIO();
    expect(await main(["completion", "tcsh"], { io, env: {} })).toBe(2);
    expect(io.err()).toContain("<shell> must be one of bash, zsh, fish");
  });
});
