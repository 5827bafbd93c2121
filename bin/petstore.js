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
 * stale cache only means a normal compile.
 */
function loadBundle(file, cachedData) {
  const { createRequire } = require("node:module");
  const { dirname } = require("node:path");
  const { Script } = require("node:vm");
  const source = readFileSync(file, "utf8");
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: file, cachedData },
  );
  const bundle = { exports: {} };
  script.runInThisContext()(bundle.exports, createRequire(file), bundle, file, dirname(file));
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
