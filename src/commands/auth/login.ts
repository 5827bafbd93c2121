/**
 * `petstore auth login`: stores an API key in a profile. The key comes from stdin
 * (`--with-token`), a file, or a prompt that does not echo; never from a flag
 * value, which any user of the machine could read in the process list. It first
 * says which profile, environment and base URL the key is for, then checks the
 * key with one `GET /pets?limit=1` (unless `--no-verify`): a key the service
 * rejects, or one that cannot be checked, is not stored (as gh does). The base
 * URL is stored with the key when given (`--base-url`), and when the key was
 * checked against PETSTORE_BASE_URL. The key goes to the system keyring, or to the
 * config file (profiles/key-store.ts), and the last line says which.
 */
import type { Command } from "commander";
import { FILES, hintedOption } from "../../completion/hints.js";
import { ENVIRONMENT_NAMES } from "../../profiles/environments.js";
import { EXIT, HttpError, PetstoreError, UsageError } from "../../errors.js";
import type { Factory } from "../factory.js";
import { addExamples } from "../help-layout.js";
import { checkConfigDir, storedProfile, type ProfileConfig } from "../../profiles/config-file.js";
import type { SettingsFlags } from "../../profiles/resolve.js";
import { dropOldKeyringKey, insecureStorage, placeKey } from "../../profiles/key-store.js";
import { KEY_HINT, readKey } from "./read-key.js";
import { loadPalette } from "../../output/palette.js";
import {
  envOption,
  profileOption,
  requestOptionsFrom,
  type RequestFlags,
} from "../request-options.js";
import { describeRateLimit, formatLines, settingsLines } from "../settings-summary.js";

type LoginFlags = Pick<RequestFlags, "profile" | "env" | "baseUrl"> & {
  withToken?: boolean;
  apiKeyFile?: string;
  /** false with --no-verify: store the key without asking the service. */
  verify?: boolean;
  /** --insecure-storage: the config file, not the system keyring. */
  insecureStorage?: boolean;
};

/** `--profile` of the auth commands, which act on a stored profile. */
export function addProfileOption(command: Command): Command {
  return command.addOption(profileOption("the profile to act on (default: the current one)"));
}

export function loginCommand(auth: Command, factory: Factory): void {
  const command = addProfileOption(
    auth
      .command("login")
      .description(
        "check an API key with the service and store it in a profile (read from stdin or a hidden prompt)",
      ),
  )
    .addOption(envOption(`the profile's environment: ${ENVIRONMENT_NAMES.join(" or ")}`))
    .option("--base-url <url>", "the profile's address for that environment")
    .option("--with-token", "read the key from stdin")
    .addOption(hintedOption("--api-key-file <path>", "read the key from this file", FILES))
    .option("--no-verify", "store the key without checking it (GET /pets?limit=1) first")
    .option(
      "--insecure-storage",
      "keep the key in the config file, not the system keyring (PETSTORE_INSECURE_STORAGE=1)",
    )
    .action((flags: LoginFlags) => loginRun(flags, factory));
  addExamples(command, [
    "petstore auth login",
    "printenv PETSTORE_KEY | petstore auth login --with-token --profile ci",
    "petstore auth login --profile local --base-url http://127.0.0.1:4010/v1 --api-key-file key.txt",
  ]);
}

/** A key that cannot be checked is not stored either, as gh refuses a token it cannot validate. */
const NO_VERIFY = "`--no-verify` stores the key without checking it";

function notStored(error: unknown): PetstoreError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof HttpError && error.status === 401) {
    return new PetstoreError(
      `the service rejected the key (401): ${message}; it was not stored`,
      EXIT.AUTH,
      "check that the whole key was copied, and that it is for this environment and base URL",
    );
  }
  const known = error instanceof PetstoreError ? error : undefined;
  const hint = known?.hint === undefined ? NO_VERIFY : `${known.hint}; ${NO_VERIFY}`;
  return new PetstoreError(
    `the key could not be checked: ${message}; it was not stored`,
    known?.exitCode ?? EXIT.UNEXPECTED,
    hint,
  );
}

const NEW_PROFILE = { allowNewProfile: true, replacingConfig: true };

export async function loginRun(flags: LoginFlags, factory: Factory): Promise<void> {
  // The profile, environment and address the key is for (resolveSettings checks --env and --base-url).
  const given: SettingsFlags = { profile: flags.profile, env: flags.env, baseUrl: flags.baseUrl };
  const settings = factory.settings(given, NEW_PROFILE);
  // Where the key comes from: checked before anything is written or asked.
  const { withToken, apiKeyFile } = flags;
  if (withToken && apiKeyFile !== undefined) {
    throw new UsageError("--with-token reads the key from stdin; it conflicts with --api-key-file");
  }
  if (!withToken && apiKeyFile === undefined && !factory.io.stdin.isTTY) {
    throw new UsageError("no API key given and stdin is not a terminal", KEY_HINT);
  }
  const verify = flags.verify !== false;
  const toFile = insecureStorage(flags.insecureStorage === true, factory.env);
  const { profile } = settings;
  // No place for the file (no HOME, a file or /proc in the way), or a proxy variable that
  // cannot be used for the check: say so before asking for the key.
  await checkConfigDir(factory.env);
  if (verify) factory.route(settings.baseUrl, false);
  const { stderr } = factory.io;
  const palette = await loadPalette(factory.io, "stderr");
  stderr.write(formatLines(settingsLines(settings, palette).slice(0, 3)));
  const fromVariable = settings.sources.baseUrl === "environment";
  if (fromVariable && !verify) {
    stderr.write(
      `${palette.dim("note: PETSTORE_BASE_URL is not stored, as the key is not checked against it; `--base-url` stores one in the profile")}\n`,
    );
  }
  const apiKey = await readKey(flags, factory.io);
  if (verify) {
    // The request flags of a run that gives none: default timeout and retries, PETSTORE_DEBUG.
    const request = { ...requestOptionsFrom({}, factory.env), settings: { ...given, apiKey } };
    const { response } = await factory
      .client(request, NEW_PROFILE)
      .then(({ client }) => client.listPets({ limit: 1 }))
      .catch((error: unknown) => {
        throw notStored(error);
      });
    const left = describeRateLimit(response.rateLimit, factory.now());
    stderr.write(`The service accepted the key. Rate limit: ${left}\n`);
  }
  // The address the key was checked against is kept with it (as gh keeps the host it logged
  // in to): else a new shell, without PETSTORE_BASE_URL, would use the key at the default one.
  const fromFlag = settings.sources.baseUrl === "flag";
  const baseUrl = fromFlag || (fromVariable && verify) ? settings.baseUrl : undefined;
  const placement = await placeKey(factory.env, profile, apiKey, toFile);
  let previous: string | undefined;
  const update = await factory.updateConfig(
    (config) => {
      const { apiKey: _file, keyring, ...rest } = storedProfile(config, profile) ?? {};
      previous = keyring;
      const stored: ProfileConfig = { ...rest, ...placement.fields };
      if (flags.env !== undefined) stored.env = settings.env;
      if (baseUrl !== undefined) {
        stored.baseUrls = { ...stored.baseUrls, [stored.env ?? "production"]: baseUrl };
      }
      config.profiles[profile] = stored;
      config.currentProfile ??= profile;
    },
    { replaceBroken: true },
  );
  if (update.replaced !== undefined) {
    stderr.write(
      `warning: ${update.replaced.message}; kept it as ${update.backup} and wrote a new one\n`,
    );
  }
  const env = storedProfile(update.config, profile)?.env ?? "production";
  const checked = verify
    ? ""
    : " It was not checked (--no-verify): `petstore auth status` checks it.";
  const what = baseUrl === undefined ? "the API key" : `the API key and the base URL ${baseUrl}`;
  const where = placement.describe(update.path);
  stderr.write(`Stored ${what} in profile ${profile} (${env}) in ${where}.${checked}\n`);
  if (previous !== undefined && previous !== placement.fields.keyring) {
    const left = await dropOldKeyringKey(factory.env, profile, previous);
    if (left !== undefined) stderr.write(`warning: ${left}\n`);
  }
}
