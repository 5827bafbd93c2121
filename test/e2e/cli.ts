/**
 * The CLI the end-to-end tests run: `bin/petstore.js` of the packed npm package
 * (test/global-setup.ts packs and unpacks it), under the Node of this test project
 * (PETSTORE_TEST_NODE, set per project in vitest.config.ts), or this process's Node.
 */
import { join } from "node:path";
import { inject } from "vitest";
import { runtimeDir } from "../../scripts/node-runtimes.mjs";
import { E2E_RUNTIME } from "./runtimes.js";
import { REPO_ROOT } from "../server/cli-build.js";

const version = process.env.PETSTORE_TEST_NODE;

/** The node executable that runs the CLI. */
export const CLI_NODE = version
  ? join(runtimeDir(REPO_ROOT, E2E_RUNTIME, version), "bin", "node")
  : process.execPath;

/** The package's launcher. */
export const CLI_BIN = join(inject("packageDir"), "bin", "petstore.js");

/** The command line that runs the CLI: node, then the launcher. */
export const CLI: readonly [string, string] = [CLI_NODE, CLI_BIN];
