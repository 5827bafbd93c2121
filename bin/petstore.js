#!/usr/bin/env node
// The launcher. CommonJS on purpose (bin/package.json): Node's ESM loader costs
// a share of `node -e 0` (docs/benchmarks.md), and only a classic script takes
// a V8 code cache.
// `--version` is answered before any bundle is read, and without creating
// process.stdout (a few milliseconds of start-up).
/* global require, module, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, see above */
"use strict";
const { readFileSync, writeSync } = require("node:fs");

const ROOT = `${__dirname}/..`;
const CLI_BUNDLE = `${ROOT}/dist/cli.cjs`;

/**
 * False when the write failed other than by a reader that went away (EPIPE): a
 * full descriptor (EAGAIN) or a full disk (ENOSPC) is then left to the CLI's own
 * output path, which waits for the reader or reports the error with exit 1.
 */
function printVersion() {
  const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8"));
  try {
    writeSync(1, `${version}\n`);
  } catch (error) {
    return error.code === "EPIPE";
  }
  return true;
}

function runCli(args) {
  const { main } = loadBundle(CLI_BUNDLE, readCodeCache(CLI_BUNDLE)).exports;
  main(args).then((code) => {
    process.exitCode = code;
  });
}

/**
 * Runs a CommonJS bundle as Node's module loader would, but compiled with the
 * code cache beside it (`<bundle>.cache`, written by the build); a missing or
 * stale cache only means a normal compile. The file holds the function the
 * module loader would wrap it in (scripts/build.mjs), so its text is compiled as
 * read. Its `require` takes Node's modules and the bundle's own files ("./x.cjs",
 * beside it): all a bundle asks for, without loading node:module.
 */
function loadBundle(file, cachedData) {
  const { Script } = require("node:vm");
  const directory = file.slice(0, file.lastIndexOf("/"));
  const script = new Script(readFileSync(file, "utf8"), { filename: file, cachedData });
  const bundle = { exports: {} };
  const bundleRequire = (id) => require(id.startsWith("./") ? `${directory}/${id.slice(2)}` : id);
  script.runInThisContext()(bundle.exports, bundleRequire, bundle, file, directory);
  return { exports: bundle.exports, script };
}

function readCodeCache(file) {
  try {
    return readFileSync(`${file}.cache`);
  } catch {
    return undefined;
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const version = args.length === 1 && (args[0] === "--version" || args[0] === "-V");
  if (!version || !printVersion()) runCli(args);
} else {
  module.exports = { loadBundle, CLI_BUNDLE };
}
