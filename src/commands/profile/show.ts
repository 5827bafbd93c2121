/**
 * `petstore profile show [profile]`: the settings a run would use with this
 * profile, and where each comes from. No request is made (`auth status` does).
 */
import type { Factory } from "../factory.js";
import { loadPalette } from "../../output/palette.js";
import { escapeJsonControls } from "../../output/text-escape.js";
import { stringifyJson } from "../../schema/json.js";
import type { Command } from "commander";
import { hintedOption, words } from "../../completion/hints.js";
import { ENVIRONMENT_NAMES } from "../../profiles/environments.js";
import { addExamples } from "../help-layout.js";
import { addJsonOption } from "../output-options.js";
import { formatLines, settingsJson, settingsLines } from "../settings-summary.js";
import { addProfileArgument } from "./stored.js";

export interface ShowFlags {
  env?: string;
  baseUrl?: string;
  json?: boolean;
}

export function profileShowCommand(profile: Command, factory: Factory): void {
  const command = addProfileArgument(
    profile
      .command("show")
      .description("show the settings a run would use, and where each comes from"),
    false,
  )
    .addOption(hintedOption("--env <name>", "as for a request", words(ENVIRONMENT_NAMES)))
    .option("--base-url <url>", "as for a request")
    .action((name: string | undefined, flags: ShowFlags) => profileShowRun(name, flags, factory));
  addJsonOption(command, "as JSON");
  addExamples(command, ["petstore profile show", "petstore profile show ci --json"]);
}

export async function profileShowRun(
  name: string | undefined,
  flags: ShowFlags,
  factory: Factory,
): Promise<void> {
  const settings = factory.settings({ profile: name, env: flags.env, baseUrl: flags.baseUrl });
  const { io } = factory;
  if (flags.json) {
    const json = stringifyJson(settingsJson(settings), io.stdout.isTTY ? 2 : 0);
    io.stdout.write(escapeJsonControls(json) + "\n");
    return;
  }
  io.stdout.write(formatLines(settingsLines(settings, await loadPalette(io, "stdout"))));
}
