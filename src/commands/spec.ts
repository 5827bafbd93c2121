/**
 * The command tree as data: names, arguments, flags, help text and examples. The
 * commander program is built from it (program.ts), and so is the fast parser
 * that answers the hot commands without loading commander (fast-parse.ts); the
 * shell completions are generated from the commander tree built from it.
 * Values are validated by the commands (with the shared zod schema), not here.
 */
import { DEFAULT_TIMEOUT_MS } from "../client/client.js";
import { DEFAULT_RETRY_POLICY } from "../client/retry.js";
import { INPUT_FORMATS } from "../bulk/input/input-format.js";
import { FILES, PROFILES, words, type ValueHint } from "../completion/hints.js";
import { SHELLS } from "../completion/shells.js";
import { OUTPUT_FORMATS } from "../output/output-format.js";
import { ENVIRONMENT_NAMES } from "../profiles/environments.js";
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, PET_STATUSES } from "../schema/pet.js";

export interface OptionSpec {
  /** As commander takes them: `-o, --output <format>`, `--no-retry`. */
  flags: string;
  description: string;
  /** What the value is (for completion); enum flags take their words from the list they are validated against. */
  values?: ValueHint;
}

interface ArgumentSpec {
  name: string;
  required: boolean;
  description: string;
  values?: ValueHint;
}

export interface CommandSpec {
  name: string;
  description: string;
  arguments?: readonly ArgumentSpec[];
  options?: readonly OptionSpec[];
  /** Shown under "Examples:" in --help. */
  examples?: readonly string[];
  hidden?: boolean;
  commands?: readonly CommandSpec[];
}

const STATUS_LIST = PET_STATUSES.join(", ");
const STATUS_WORDS = words(PET_STATUSES);
const ENVIRONMENT_WORDS = words(ENVIRONMENT_NAMES);
const ENVIRONMENT_LIST = ENVIRONMENT_NAMES.join(" or ");

/** Accepted before or after the command name, by every command. */
export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  {
    flags: "--no-color",
    description: "no colour on stdout or stderr (also NO_COLOR=1, TERM=dumb)",
  },
  { flags: "--debug", description: "show stack traces of errors" },
];

const REQUEST_OPTIONS: readonly OptionSpec[] = [
  {
    flags: "-p, --profile <name>",
    description: "stored profile for this run (PETSTORE_PROFILE)",
    values: PROFILES,
  },
  {
    flags: "--env <name>",
    description: `${ENVIRONMENT_LIST} for this run (PETSTORE_ENV)`,
    values: ENVIRONMENT_WORDS,
  },
  { flags: "--base-url <url>", description: "service address for this run (PETSTORE_BASE_URL)" },
  {
    flags: "--allow-insecure",
    description: "send the key over plain http:// to a host that is not this machine",
  },
  {
    flags: "--timeout <seconds>",
    description: `give up on one attempt after this long (${DEFAULT_TIMEOUT_MS / 1000})`,
  },
  {
    flags: "--max-retries <n>",
    description: `retries after 429, 5xx or a network error (${DEFAULT_RETRY_POLICY.limit})`,
  },
  { flags: "--no-retry", description: "never retry" },
  {
    flags: "--verbose",
    description: "log each request, its status, timing and rate limit on stderr (PETSTORE_DEBUG=1)",
  },
];

const OUTPUT_OPTIONS: readonly OptionSpec[] = [
  {
    flags: "-o, --output <format>",
    description: `${OUTPUT_FORMATS.join(", ")} (default: table on a terminal, else tsv)`,
    values: words(OUTPUT_FORMATS),
  },
  { flags: "--json", description: "same as --output json" },
  { flags: "-q, --quiet", description: "print only the ids" },
];

/** `add`'s: with --from, stdout has a line per row (docs/bulk-intake.md). */
const ADD_OUTPUT_OPTIONS: readonly OptionSpec[] = [
  {
    ...OUTPUT_OPTIONS[0]!,
    description: `${OUTPUT_OPTIONS[0]!.description}; with --from, ndjson only`,
  },
  {
    flags: "--json",
    description: "same as --output json; with --from, one NDJSON line per row's outcome",
  },
  {
    flags: "-q, --quiet",
    description: "print only the ids; with --from, one per added row, in input order",
  },
];

const STATUS_OPTION: OptionSpec = {
  flags: "-s, --status <status>",
  description: STATUS_LIST,
  values: STATUS_WORDS,
};

const LIST_COMMAND: CommandSpec = {
  name: "list",
  description: "list pets, optionally only those with one status",
  options: [
    STATUS_OPTION,
    {
      flags: "-L, --limit <n>",
      description: `at most this many pets, ${LIMIT_MIN} to ${LIMIT_MAX} (${LIMIT_DEFAULT})`,
    },
    ...OUTPUT_OPTIONS,
    ...REQUEST_OPTIONS,
  ],
  examples: [
    "petstore list --status available",
    "petstore list --limit 100 --json",
    "petstore list -q --status sold | wc -l",
  ],
};

const GET_COMMAND: CommandSpec = {
  name: "get",
  description: "show one pet by id (deprecated by the service, which has no other lookup by id)",
  arguments: [{ name: "petId", required: true, description: "the pet's id, a whole number" }],
  options: [...OUTPUT_OPTIONS, ...REQUEST_OPTIONS],
  examples: ["petstore get 42", "petstore get 42 --json"],
};

export const ADD_COMMAND: CommandSpec = {
  name: "add",
  description: "add a pet from flags or a JSON body (--file), or every pet of a file (--from)",
  options: [
    { flags: "-n, --name <name>", description: "the pet's name" },
    { flags: "-c, --category-id <id>", description: "its category id, a whole number" },
    {
      flags: "-s, --status <status>",
      description: `${STATUS_LIST} (the service's default if left out)`,
      values: STATUS_WORDS,
    },
    {
      flags: "--no-prompt",
      description:
        "never ask for a field the flags leave out, even on a terminal (PETSTORE_NO_PROMPT=1)",
    },
    {
      flags: "--file <path>",
      description: "a JSON NewPet body from this file, or - for stdin (instead of the flags)",
      values: FILES,
    },
    {
      flags: "--from <path>",
      description:
        "add every pet of a CSV, NDJSON or JSON-array file (- for stdin), at the pace the rate limit allows",
      values: FILES,
    },
    {
      flags: "--format <format>",
      description: `${INPUT_FORMATS.join(", ")} (default: from the extension, else the content)`,
      values: words(INPUT_FORMATS),
    },
    {
      flags: "--skip-invalid",
      description: "send the valid rows even if some are invalid (exit 2 at the end)",
    },
    {
      flags: "--ignore-unknown-columns",
      description: "CSV: send the known columns, ignore the others (else they are an error)",
    },
    {
      flags: "--results <path>",
      description:
        "record each row's outcome (NDJSON: added with its id, invalid, failed, unknown)",
      values: FILES,
    },
    {
      flags: "--resume <results>",
      description: "continue the run recorded in this results file",
      values: FILES,
    },
    {
      flags: "--retry-unknown",
      description:
        "with --resume: send again the rows whose outcome is unknown (they may be added twice)",
    },
    { flags: "--concurrency <n>", description: "requests in flight at most, 1 to 64 (16)" },
    ...ADD_OUTPUT_OPTIONS,
    ...REQUEST_OPTIONS,
  ],
  examples: [
    "petstore add --name Rex --category-id 1 --status available",
    "id=$(petstore add --name Rex --category-id 1 -q)",
    `echo '{"name":"Tom","categoryId":2}' | petstore add --file -`,
    "petstore add --from shelter.csv --results shelter.results",
    "petstore add --from shelter.csv --resume shelter.results",
    "petstore add --from shelter.csv -q > shelter.ids",
  ],
};

const PROFILE_FLAG: OptionSpec = {
  flags: "-p, --profile <name>",
  description: "the profile to act on (default: the current one)",
  values: PROFILES,
};

const AUTH_COMMAND: CommandSpec = {
  name: "auth",
  description: "store, check and remove API keys",
  commands: [
    {
      name: "login",
      description:
        "check an API key with the service and store it in a profile (read from stdin or a hidden prompt)",
      options: [
        PROFILE_FLAG,
        {
          flags: "--env <name>",
          description: `the profile's environment: ${ENVIRONMENT_LIST}`,
          values: ENVIRONMENT_WORDS,
        },
        { flags: "--base-url <url>", description: "the profile's address for that environment" },
        { flags: "--with-token", description: "read the key from stdin" },
        {
          flags: "--api-key-file <path>",
          description: "read the key from this file",
          values: FILES,
        },
        {
          flags: "--no-verify",
          description: "store the key without checking it (GET /pets?limit=1) first",
        },
        {
          flags: "--insecure-storage",
          description:
            "keep the key in the config file, not the system keyring (PETSTORE_INSECURE_STORAGE=1)",
        },
      ],
      examples: [
        "petstore auth login",
        "printenv PETSTORE_KEY | petstore auth login --with-token --profile ci",
        "petstore auth login --profile local --base-url http://127.0.0.1:4010/v1 --api-key-file key.txt",
      ],
    },
    {
      name: "status",
      description: "check the key with a real request; show profile, address and rate limit",
      options: [
        { flags: "--json", description: "the same as JSON on stdout, the key redacted" },
        ...REQUEST_OPTIONS,
      ],
      examples: [
        "petstore auth status",
        "petstore auth status --profile ci --env staging",
        "petstore auth status --json | jq .rateLimit",
      ],
    },
    {
      name: "logout",
      description: "remove the stored key of a profile",
      options: [PROFILE_FLAG],
      examples: ["petstore auth logout --profile ci"],
    },
  ],
};

const PROFILE_ARGUMENT: ArgumentSpec = {
  name: "profile",
  required: true,
  description: "a profile name",
  values: PROFILES,
};

const PROFILE_COMMAND: CommandSpec = {
  name: "profile",
  description: "list, choose, show and remove stored profiles",
  commands: [
    {
      name: "list",
      description: "list the stored profiles (the current one marked)",
      options: OUTPUT_OPTIONS.filter((option) => !option.flags.startsWith("-q")),
      examples: ["petstore profile list", "petstore profile list --json"],
    },
    {
      name: "use",
      description: "make a profile the default for later runs",
      arguments: [PROFILE_ARGUMENT],
      examples: ["petstore profile use staging"],
    },
    {
      name: "show",
      description: "show the settings a run would use, and where each comes from",
      arguments: [{ ...PROFILE_ARGUMENT, required: false }],
      options: [
        { flags: "--env <name>", description: "as for a request", values: ENVIRONMENT_WORDS },
        { flags: "--base-url <url>", description: "as for a request" },
        { flags: "--json", description: "as JSON" },
      ],
      examples: ["petstore profile show", "petstore profile show ci --json"],
    },
    {
      name: "remove",
      description: "delete a stored profile and its key",
      arguments: [PROFILE_ARGUMENT],
      examples: ["petstore profile remove old"],
    },
  ],
};

const COMPLETION_COMMAND: CommandSpec = {
  name: "completion",
  description: `print a shell completion script (${SHELLS.join(", ")})`,
  arguments: [
    { name: "shell", required: true, description: SHELLS.join(", "), values: words(SHELLS) },
  ],
  examples: [
    "petstore completion bash > ~/.local/share/bash-completion/completions/petstore",
    "petstore completion zsh > ~/.zfunc/_petstore",
    "petstore completion fish > ~/.config/fish/completions/petstore.fish",
  ],
};

/** Called by the completion scripts for values known only at completion time. */
const COMPLETE_COMMAND: CommandSpec = {
  name: "__complete",
  description: "print completion candidates (used by the completion scripts)",
  arguments: [{ name: "kind", required: true, description: "profiles" }],
  hidden: true,
};

export const COMMANDS: readonly CommandSpec[] = [
  LIST_COMMAND,
  GET_COMMAND,
  ADD_COMMAND,
  AUTH_COMMAND,
  PROFILE_COMMAND,
  COMPLETION_COMMAND,
  COMPLETE_COMMAND,
];

/** The commands the fast parser answers: the ones people and scripts run all day. */
export const HOT_COMMANDS: readonly CommandSpec[] = [LIST_COMMAND, GET_COMMAND, ADD_COMMAND];
