/**
 * `petstore profile list`: the stored profiles, the current one marked; keys redacted,
 * or `keyring` for a key kept in the system keyring (not read here).
 */
import { DEFAULT_BASE_URLS, type EnvironmentName } from "../../profiles/environments.js";
import type { Factory } from "../factory.js";
import type { Column } from "../../output/columns.js";
import { chooseOutput } from "../../output/output-format.js";
import { writeRows } from "../../output/write-rows.js";
import { redactKey } from "../../schema/redact-key.js";
import type { Command } from "commander";
import type { OutputFlags } from "../../output/output-format.js";
import { addExamples } from "../help-layout.js";
import { addOutputOptions } from "../output-options.js";

export interface ProfileRow {
  name: string;
  current: boolean;
  env: EnvironmentName;
  baseUrl: string;
  /** Redacted. */
  apiKey: string | undefined;
  keyStore: "file" | "keyring" | null;
}

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

export function profileRows(factory: Factory): ProfileRow[] {
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
        apiKey: profile.apiKey === undefined ? undefined : redactKey(profile.apiKey),
        keyStore:
          profile.apiKey !== undefined ? "file" : profile.keyring === undefined ? null : "keyring",
      };
    });
}

export function profileListCommand(profile: Command, factory: Factory): void {
  const command = profile
    .command("list")
    .description("list the stored profiles (the current one marked)")
    .action((flags: OutputFlags) => profileListRun(flags, factory));
  addOutputOptions(command, { quiet: false });
  addExamples(command, ["petstore profile list", "petstore profile list --json"]);
}

export async function profileListRun(flags: OutputFlags, factory: Factory): Promise<void> {
  const choice = chooseOutput(flags, factory.io.stdout.isTTY);
  // -q is not offered here, so the choice is always a format.
  const format = choice === "ids" ? "tsv" : choice;
  const rows = profileRows(factory);
  if (rows.length === 0 && format === "table") {
    factory.io.stderr.write("no profiles stored; `petstore auth login` creates one\n");
    return;
  }
  await writeRows(
    factory.io,
    { rows, columns: COLUMNS, toJson: (row) => ({ ...row, apiKey: row.apiKey ?? null }) },
    format,
  );
}
