import { Command } from "commander";
import { registerServeCommand } from "./commands/serve.js";

declare const PETSTORE_VERSION: string;
const version = typeof PETSTORE_VERSION === "string" ? PETSTORE_VERSION : "0.0.0-dev";

export async function main(argv: string[]): Promise<number> {
  const program = new Command("petstore").version(version).exitOverride();
  registerServeCommand(program);
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (error) {
    const code = (error as { exitCode?: number }).exitCode;
    return typeof code === "number" ? code : 1;
  }
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}
