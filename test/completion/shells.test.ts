/**
 * completions/_petstore and completions/petstore.fish in a real zsh and fish, as
 * bash.test.ts does for bash; `petstore` is the built CLI. fish completes the line
 * itself (`complete -C`); zsh's `_petstore` runs with `words`/`CURRENT` set and
 * `compadd`, `compset` and `_files` replaced by functions that print what they are
 * given (they exist only inside a completion widget).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../server/cli-build.js";
import { useShellHome } from "./shell-home.js";

const { shellOptions } = useShellHome();

const ZSH = `
  petstore() { node "$PETSTORE_BIN" "$@"; }
  compdef() { : }
  compadd() {
    [[ $1 == -- ]] && shift
    local word; for word in "$@"; do [[ $word == "$PREFIX"* ]] && print -r -- "$IPREFIX$word"; done
  }
  compset() { [[ $PREFIX == *=* ]] && IPREFIX="\${PREFIX%%=*}=" PREFIX="\${PREFIX#*=}"; }
  _files() { print -r -- "files:$IPREFIX|$PREFIX"; }
  source "$1"; shift
  words=("$@"); CURRENT=$#; PREFIX=\${words[CURRENT]}; IPREFIX=""
  _petstore`;

const FISH = `
  function petstore; node "$PETSTORE_BIN" $argv; end
  source $argv[1]
  complete -C $argv[2]`;

async function run(shell: string, args: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(shell, args, shellOptions());
  return stdout.split("\n").filter((line) => line !== "");
}

/** What each shell offers for the last word of `line` (split at spaces), sorted, without descriptions. */
const SHELLS = {
  zsh: (line: string) =>
    run("zsh", [
      "-f",
      "-c",
      ZSH,
      "zsh",
      join(REPO_ROOT, "completions", "_petstore"),
      ...line.split(" "),
    ]),
  fish: (line: string) =>
    run("fish", ["--no-config", "-c", FISH, join(REPO_ROOT, "completions", "petstore.fish"), line]),
};

const offered = async (shell: keyof typeof SHELLS, line: string) =>
  (await SHELLS[shell](line)).map((candidate) => candidate.split("\t")[0]).sort();

describe.each(Object.keys(SHELLS) as (keyof typeof SHELLS)[])("%s completion", (shell) => {
  it.each<[string, string[]]>([
    [
      "petstore ",
      ["add", "auth", "completion", "get", "help", "list", "profile", "serve", "verdict"],
    ],
    ["petstore pro", ["profile"]],
    ["petstore auth ", ["help", "login", "logout", "status"]],
    ["petstore --no-color li", ["list"]],
    ["petstore list --st", ["--status"]],
    ["petstore profile list --", ["--debug", "--help", "--jq", "--json", "--no-color", "--output"]],
    ["petstore list --limit 5 --li", ["--limit"]],
    ["petstore list -s ", ["available", "pending", "sold"]],
    ["petstore add --status=s", ["--status=sold"]],
    ["petstore get -o ", ["csv", "json", "ndjson", "table", "tsv"]],
    ["petstore list --env ", ["production", "staging"]],
    ["petstore completion ", ["bash", "fish", "zsh"]],
    ["petstore list --profile ", ["ci", "default"]],
    ["petstore auth login --profile=", ["--profile=ci", "--profile=default"]],
    ["petstore profile use c", ["ci"]],
    ["petstore list --json ", []],
  ])("%j offers %j", async (line, expected) => {
    expect(await offered(shell, line)).toEqual(expected);
  });

  it("offers the flags of the command being typed", async () => {
    expect(await offered(shell, "petstore list -")).toEqual(
      expect.arrayContaining(["-s", "-L", "-o", "-p", "-q", "--status", "--verbose"]),
    );
  });

  it("offers file names for --file, also after --file=", async () => {
    const files = shell === "zsh" ? ["files:|"] : ["rex.json", "tom.json"];
    expect(await offered(shell, "petstore add --file ")).toEqual(files);
    expect(await offered(shell, "petstore add --file=r")).toEqual(
      shell === "zsh" ? ["files:--file=|r"] : ["--file=rex.json"],
    );
  });
});

it("fish shows each command's and flag's description", async () => {
  expect(await SHELLS.fish("petstore au")).toEqual(["auth\tstore, check and remove API keys"]);
  expect(await SHELLS.fish("petstore list --st")).toEqual(["--status\tavailable, pending, sold"]);
});
