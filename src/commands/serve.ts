import type { Command } from "commander";

/** Registers `petstore serve`; the server itself is imported only when it runs. */
export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("run a local fake of the Pet Store service on a JSON file")
    .action(() => {
      process.stderr.write("petstore serve: not implemented yet\n");
      process.exitCode = 1;
    });
}
