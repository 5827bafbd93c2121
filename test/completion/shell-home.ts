/**
 * The home both shell tests complete in: a config with profiles `default` and `ci`,
 * and a working directory with two files; `shellOptions` runs a shell there with
 * `petstore` as the built CLI.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { BIN } from "../server/cli-build.js";

export function useShellHome(): { shellOptions: () => { cwd: string; env: NodeJS.ProcessEnv } } {
  let home = "";
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "petstore-completion-"));
    const config = { currentProfile: "default", profiles: { default: {}, ci: { env: "staging" } } };
    mkdirSync(join(home, "config"));
    writeFileSync(join(home, "config", "config.json"), JSON.stringify(config));
    mkdirSync(join(home, "work"));
    writeFileSync(join(home, "work", "rex.json"), "{}");
    writeFileSync(join(home, "work", "tom.json"), "{}");
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });
  return {
    shellOptions: () => ({
      cwd: join(home, "work"),
      env: { PATH: process.env.PATH, PETSTORE_BIN: BIN, PETSTORE_CONFIG_DIR: join(home, "config") },
    }),
  };
}
