/**
 * The native keyring binding (@napi-rs/keyring's, a Rust build of keyring-rs).
 *
 * - From the npm package: the prebuilt package for this platform, which npm installed
 *   as one of petstore-cli's optional dependencies (@napi-rs/keyring-<platform>).
 *   @napi-rs/keyring's own loader is not used: it also looks for WASI and Android
 *   builds, which would have to be left out of the bundle one by one.
 * - Inside a standalone binary, where `require` finds no package: the binary carries
 *   its platform's `.node` as the SEA asset `keyring.node` (scripts/build-binary.mjs),
 *   written to a private file that `process.dlopen` loads. On Linux and macOS the file
 *   is removed at once (the mapping stays); Windows cannot remove a loaded DLL, so there
 *   it is kept, under a name made of its content's hash, in the user's own %TEMP%,
 *   and loaded again only when its bytes are the binary's.
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRawAsset, isSea } from "node:sea";

export type Entry = import("@napi-rs/keyring").Entry;
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

function fromAsset(): Binding {
  const bytes = Buffer.from(getRawAsset(KEYRING_ASSET) as ArrayBuffer);
  if (process.platform !== "win32") {
    const dir = mkdtempSync(join(tmpdir(), "petstore-keyring-"));
    try {
      const file = join(dir, KEYRING_ASSET);
      writeFileSync(file, bytes, { mode: 0o700 });
      return dlopen(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const { createHash } = process.getBuiltinModule("node:crypto");
  const hash = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  const file = join(tmpdir(), `petstore-keyring-${hash}.node`);
  if (!existsSync(file) || !readFileSync(file).equals(bytes)) {
    // Written whole under another name first: a process loading it meanwhile never sees half.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, bytes);
    try {
      renameSync(partial, file);
    } catch (error) {
      // A process has it loaded: it can only hold the same bytes, or the check above fails again.
      rmSync(partial, { force: true });
      if (!readFileSync(file).equals(bytes)) throw error;
    }
  }
  return dlopen(file);
}

/** Loads the binding; throws why it cannot be (no package for this platform, a library missing). */
export function loadBinding(): Binding {
  return isSea() ? fromAsset() : fromPackage();
}
