/**
 * `petstore profile show [profile]`: the settings a run would use with this
 * profile, and where each comes from. No request is made (`auth status` does).
 */
import type { Factory } from "../factory.js";
import { loadPalette } from "../../output/palette.js";
import { escapeJsonControls } from "../../output/text-escape.js";
import type { SettingsFlags } from "../../profiles/resolve.js";
import { stringifyJson } from "../../schema/json.js";
import { booleanOption, stringOption } from "../option-values.js";
import type { CommandRunner } from "../runner.js";
import { formatLines, settingsJson, settingsLines } from "../settings-summary.js";

export interface ShowOptions {
  flags: SettingsFlags;
  json: boolean;
}

export async function profileShowRun(options: ShowOptions, factory: Factory): Promise<void> {
  const settings = factory.settings(options.flags);
  const { io } = factory;
  if (options.json) {
    const json = stringifyJson(settingsJson(settings), io.stdout.isTTY ? 2 : 0);
    io.stdout.write(escapeJsonControls(json) + "\n");
    return;
  }
  io.stdout.write(formatLines(settingsLines(settings, await loadPalette(io, "stdout"))));
}

export const run: CommandRunner = (parsed, factory) => {
  const flags: SettingsFlags = {};
  const profile = parsed.args[0];
  if (profile !== undefined) flags.profile = profile;
  const env = stringOption(parsed.options, "env");
  if (env !== undefined) flags.env = env;
  const baseUrl = stringOption(parsed.options, "baseUrl");
  if (baseUrl !== undefined) flags.baseUrl = baseUrl;
  return profileShowRun({ flags, json: booleanOption(parsed.options, "json") }, factory);
};
