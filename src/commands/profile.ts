/**
 * `petstore profile list|use|show|remove`: the stored profiles. Keys are shown
 * redacted, or as `keyring` for a key kept in the system keyring (not read here);
 * `show` says what a run would use with a profile, and where each value comes
 * from, without a request (`auth status` makes one). A name is looked up so that
 * `constructor` or `toString` is never mistaken for a profile.
 */
import { Argument, type Command } from "commander";
import { PROFILES, withHint } from "../completion/hints.js";
import { UsageError } from "../errors.js";
import type { Column } from "../output/columns.js";
import { chooseOutput, type OutputFlags } from "../output/output-format.js";
import { loadPalette } from "../output/palette.js";
import { writeJson, writeRows } from "../output/write-rows.js";
import { storedProfile, type ProfileConfig, type StoredConfig } from "../profiles/config-file.js";
import { DEFAULT_BASE_URLS } from "../profiles/environments.js";
import { removeKeyringKey } from "../profiles/key-store.js";
import { redactKey } from "../schema/redact-key.js";
import type { Factory } from "./factory.js";
import { addExamples } from "./help-layout.js";
import { addJsonOption, addOutputOptions } from "./output-options.js";
import { envOption, type RequestFlags } from "./request-options.js";
import { formatLines, settingsJson, settingsLines } from "./settings-summary.js";

export function profileCommand(program: Command, factory: Factory): void {
  const profile = program
    .command("profile")
    .description("list, choose, show and remove stored profiles");

  const list = profile
    .command("list")
    .description("list the stored profiles (the current one marked)")
    .action((flags: OutputFlags) => profileListRun(flags, factory));
  addOutputOptions(list, { quiet: false });
  addExamples(list, ["petstore profile list", "petstore profile list --json"]);

  const use = profileArgument(
    profile.command("use").description("make a profile the default for later runs"),
    true,
  ).action((name: string) => profileUseRun(name, factory));
  addExamples(use, ["petstore profile use staging"]);

  const show = profileArgument(
    profile
      .command("show")
      .description("show the settings a run would use, and where each comes from"),
    false,
  )
    .addOption(envOption("as for a request"))
    .option("--base-url <url>", "as for a request")
    .action((name: string | undefined, flags: ShowFlags) => profileShowRun(name, flags, factory));
  addJsonOption(show, "as JSON");
  addExamples(show, ["petstore profile show", "petstore profile show ci --json"]);

  const remove = profileArgument(
    profile.command("remove").description("delete a stored profile and its key"),
    true,
  ).action((name: string) => profileRemoveRun(name, factory));
  addExamples(remove, ["petstore profile remove old"]);
}

/** The `<profile>` (or `[profile]`) argument of the profile commands. */
function profileArgument(command: Command, required: boolean): Command {
  const name = required ? "<profile>" : "[profile]";
  return command.addArgument(withHint(new Argument(name, "a profile name"), PROFILES));
}

function existingProfile(config: StoredConfig, name: string): ProfileConfig {
  const profile = storedProfile(config, name);
  if (profile !== undefined) return profile;
  const names = Object.keys(config.profiles);
  throw new UsageError(
    `there is no profile named ${JSON.stringify(name)}`,
    names.length > 0
      ? `profiles: ${names.join(", ")}`
      : "no profiles are stored; `petstore auth login` creates one",
  );
}

type ProfileRow = ReturnType<typeof profileRows>[number];

const COLUMNS: readonly Column<ProfileRow>[] = [
  { key: "current", label: "", value: (row) => (row.current ? "*" : "") },
  { key: "name", label: "NAME", value: (row) => row.name, style: (v, p) => p.bold(v) },
  { key: "env", label: "ENV", value: (row) => row.env },
  { key: "baseUrl", label: "BASE URL", value: (row) => row.baseUrl, shrinkable: true },
  {
    key: "apiKey",
    label: "KEY",
    value: (row) => row.apiKey ?? (row.keyStore === "keyring" ? "keyring" : ""),
  },
];

function profileRows(factory: Factory) {
  const config = factory.config();
  return Object.entries(config.profiles)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, profile]) => {
      const env = profile.env ?? "production";
      return {
        name,
        current: name === (config.currentProfile ?? "default"),
        env,
        baseUrl: profile.baseUrls?.[env] ?? DEFAULT_BASE_URLS[env],
        apiKey: profile.apiKey === undefined ? null : redactKey(profile.apiKey),
        keyStore:
          profile.apiKey !== undefined ? "file" : profile.keyring === undefined ? null : "keyring",
      };
    });
}

async function profileListRun(flags: OutputFlags, factory: Factory): Promise<void> {
  const choice = chooseOutput(flags, factory.io.stdout.isTTY);
  // -q is not offered here, so the choice is always a format.
  const format = choice === "ids" ? "tsv" : choice;
  const rows = profileRows(factory);
  if (rows.length === 0 && format === "table") {
    factory.io.stderr.write("no profiles stored; `petstore auth login` creates one\n");
    return;
  }
  await writeRows(factory.io, { rows, columns: COLUMNS }, format);
}

/** The default profile of later runs (PETSTORE_PROFILE and --profile still win). */
async function profileUseRun(name: string, factory: Factory): Promise<void> {
  existingProfile(factory.config(), name);
  await factory.updateConfig((config) => {
    config.currentProfile = name;
  });
  factory.io.stderr.write(`Now using profile ${name}.\n`);
}

type ShowFlags = Pick<RequestFlags, "env" | "baseUrl"> & { json?: boolean };

async function profileShowRun(name: string | undefined, flags: ShowFlags, factory: Factory) {
  const settings = factory.settings({ profile: name, env: flags.env, baseUrl: flags.baseUrl });
  const { io } = factory;
  if (flags.json) writeJson(io.stdout, settingsJson(settings));
  else io.stdout.write(formatLines(settingsLines(settings, await loadPalette(io, "stdout"))));
}

/** Deletes a profile and its key (from the keyring too). */
async function profileRemoveRun(name: string, factory: Factory): Promise<void> {
  const { keyring } = existingProfile(factory.config(), name);
  if (keyring !== undefined) await removeKeyringKey(factory.env, name, keyring);
  await factory.updateConfig((config) => {
    delete config.profiles[name];
    if (config.currentProfile === name) delete config.currentProfile;
  });
  factory.io.stderr.write(`Removed profile ${name}.\n`);
}
