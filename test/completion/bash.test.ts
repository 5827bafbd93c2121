/**
 * Sources completions/petstore.bash in a real bash, drives `_petstore` with
 * COMP_WORDS/COMP_CWORD and reads COMPREPLY; `petstore` is the built CLI, so
 * profile names come from a real `petstore __complete profiles`.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../server/cli-build.js";
import { useShellHome } from "./shell-home.js";

const SCRIPT = join(REPO_ROOT, "completions", "petstore.bash");
const { shellOptions } = useShellHome();

/** What bash offers for the last word of `words`. */
async function complete(...words: string[]): Promise<string[]> {
  const program = `
    source "$1"; shift
    petstore() { node "$PETSTORE_BIN" "$@"; }
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    _petstore
    printf '%s\\n' "\${COMPREPLY[@]}"`;
  const { stdout } = await promisify(execFile)(
    "bash",
    ["-c", program, "bash", SCRIPT, ...words],
    shellOptions(),
  );
  return stdout.split("\n").filter((line) => line !== "");
}

describe("bash completion", () => {
  it("offers the commands, not the hidden one", async () => {
    expect(await complete("petstore", "")).toEqual([
      "list",
      "get",
      "add",
      "auth",
      "profile",
      "completion",
      "serve",
      "verdict",
      "help",
    ]);
    expect(await complete("petstore", "pro")).toEqual(["profile"]);
  });

  it("offers the short flags people type most, and their values", async () => {
    expect(await complete("petstore", "list", "-")).toEqual(
      expect.arrayContaining(["-s", "-L", "-o", "-p", "-q"]),
    );
    expect(await complete("petstore", "add", "-")).toEqual(
      expect.arrayContaining(["-n", "-c", "-s", "-p"]),
    );
    expect(await complete("petstore", "list", "-s", "")).toEqual(["available", "pending", "sold"]);
    expect(await complete("petstore", "list", "-p", "")).toEqual(["ci", "default"]);
  });

  it("offers subcommands after a group, skipping global flags", async () => {
    expect(await complete("petstore", "auth", "")).toEqual(["login", "status", "logout", "help"]);
    expect(await complete("petstore", "--no-color", "li")).toEqual(["list"]);
  });

  it("offers the flags of the command being typed", async () => {
    expect(await complete("petstore", "list", "--st")).toEqual(["--status"]);
    expect(await complete("petstore", "profile", "list", "--")).toEqual([
      "--output",
      "--json",
      "--jq",
      "--help",
      "--no-color",
      "--debug",
    ]);
    expect(await complete("petstore", "list", "--limit", "5", "--li")).toEqual(["--limit"]);
  });

  it("offers the status values, also after --status=", async () => {
    expect(await complete("petstore", "list", "--status", "")).toEqual([
      "available",
      "pending",
      "sold",
    ]);
    expect(await complete("petstore", "list", "--status", "=", "p")).toEqual(["pending"]);
    expect(await complete("petstore", "add", "--status=s")).toEqual(["--status=sold"]);
  });

  it("offers output formats, environments and shells", async () => {
    expect(await complete("petstore", "get", "-o", "")).toEqual([
      "table",
      "tsv",
      "csv",
      "json",
      "ndjson",
    ]);
    expect(await complete("petstore", "list", "--env", "")).toEqual(["production", "staging"]);
    expect(await complete("petstore", "completion", "")).toEqual(["bash", "zsh", "fish"]);
  });

  it("offers the stored profile names, read at completion time", async () => {
    expect(await complete("petstore", "list", "--profile", "")).toEqual(["ci", "default"]);
    expect(await complete("petstore", "profile", "use", "c")).toEqual(["ci"]);
  });

  it("offers file names for --file", async () => {
    expect((await complete("petstore", "add", "--file", "")).sort()).toEqual([
      "rex.json",
      "tom.json",
    ]);
  });
});
