/**
 * The native keyring binding (@napi-rs/keyring's, a Rust build of keyring-rs).
 *
 * - From the npm package: the prebuilt package for this platform, which npm installed
 *   as one of petstore-cli's optional dependencies (@napi-rs/keyring-<platform>).
 *   @napi-rs/keyring's own loader is not used: it also looks for WASI and Android
 *   builds, which would have to be left out of the bundle one by one.
 * - Inside a standalone binary, where `require` finds no package: the binary carries
 *   its platform's `.node` as the SEA asset `keyring.node` (scripts/build-binary.mjs),
 *   written to a file only this user can write that `process.dlopen` loads. Kept between
 *   runs where the user has a private directory (writing 3 MB each time cost a few ms:
 *   docs/benchmarks.md), and loaded again only while its bytes are the binary's; else
 *   written to a new private temporary directory and removed once loaded (the mapping
 *   stays). Windows could not remove it anyway: a loaded DLL cannot be deleted.
 */
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRawAsset, isSea } from "node:sea";
import { lstatIfThere, ownershipProblem } from "../files/file-safety.js";

export type Binding = Pick<typeof import("@napi-rs/keyring"), "Entry">;

/** The SEA asset's name, as scripts/build-binary.mjs embeds it. */
export const KEYRING_ASSET = "keyring.node";

/** The npm packages that may hold this platform's binding, in the order they are tried. */
function bindingPackages(): string[] {
  const base = `@napi-rs/keyring-${process.platform}-${process.arch}`;
  if (process.platform === "linux") return [`${base}-gnu`, `${base}-musl`];
  if (process.platform === "win32") return [`${base}-msvc`];
  return [base];
}

function fromPackage(): Binding {
  const require = createRequire(import.meta.url);
  const names = bindingPackages();
  for (const name of names) {
    try {
      return require(name) as Binding;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
    }
  }
  throw new Error(
    `no keyring binding is installed for ${process.platform}-${process.arch} (${names.join(" or ")})`,
  );
}

function dlopen(file: string): Binding {
  const addon = { exports: {} as Binding };
  process.dlopen(addon, file);
  return addon.exports;
}

function sameBytes(file: string, bytes: Buffer): boolean {
  try {
    return readFileSync(file).equals(bytes);
  } catch {
    return false;
  }
}

/**
 * Where the binding may be kept between runs: a directory only this user can write to.
 * %TEMP% on Windows (inside the user's profile); $XDG_RUNTIME_DIR on Linux (the user's
 * own, 0700, set in every desktop session, where Secret Services run), only while it is
 * a directory of this user's that no one else may write to: another's file there would
 * be loaded. Else none: the binding goes to a private temporary directory for the run.
 */
export function keptIn(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform === "win32") return tmpdir();
  const dir = env.XDG_RUNTIME_DIR;
  const stats = dir ? lstatIfThere(dir) : undefined;
  return stats?.isDirectory() && ownershipProblem(stats) === undefined ? dir : undefined;
}

function fromAsset(): Binding {
  const bytes = Buffer.from(getRawAsset(KEYRING_ASSET) as ArrayBuffer);
  const kept = keptIn();
  const dir = kept ?? mkdtempSync(join(tmpdir(), "petstore-keyring-"));
  try {
    // Loaded only while its bytes are this binary's, whoever wrote it.
    const file = join(dir, `petstore-keyring-${bytes.length}.node`);
    if (!sameBytes(file, bytes)) {
      // Written whole under another name first: a process loading it meanwhile never sees half.
      const partial = `${file}.${process.pid}`;
      writeFileSync(partial, bytes, { mode: 0o700 });
      try {
        renameSync(partial, file);
      } catch (error) {
        // Windows: a process has it loaded. Usable only if it holds these bytes.
        rmSync(partial, { force: true });
        if (!sameBytes(file, bytes)) throw error;
      }
    }
    return dlopen(file);
  } finally {
    if (kept === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** Loads the binding; throws why it cannot be (no package for this platform, a library missing). */
export function loadBinding(): Binding {
  return isSea() ? fromAsset() : fromPackage();
}
