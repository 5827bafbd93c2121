/**
 * `petstore profile show [profile]`: the settings a run would use with this
 * profile, and where each comes from. No request is made (`auth status` does).
 */
import type { Factory } from "../factory.js";
import { loadPalette } from "../../output/palette.js";
import { writeJson } from "../../output/write-rows.js";
import type { Command } from "commander";
import { addExamples } from "../help-layout.js";
import { addJsonOption } from "../output-options.js";
import { envOption } from "../request-options.js";
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
    .addOption(envOption("as for a request"))
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
  if (flags.json) writeJson(io.stdout, settingsJson(settings));
  else io.stdout.write(formatLines(settingsLines(settings, await loadPalette(io, "stdout"))));
}
