/**
 * The check behind the THIRD_PARTY_LICENSES tests, written apart from the generator
 * (scripts/third-party-licenses.mjs) so that a mistake in one is not repeated in the other.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface Bundled {
  /** `name@version` */
  id: string;
  /** The package's directory, relative to the root. */
  dir: string;
}

/** Every package directory an esbuild metafile's inputs come from, once each. */
export function bundledPackages(root: string, metafilePath: string): Bundled[] {
  const { inputs } = JSON.parse(readFileSync(metafilePath, "utf8")) as {
    inputs: Record<string, unknown>;
  };
  const dirs = new Map<string, string>();
  for (const input of Object.keys(inputs)) {
    const at = input.lastIndexOf("node_modules/");
    if (at === -1) continue;
    const rest = input.slice(at + "node_modules/".length).split("/");
    const name = rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
    dirs.set(input.slice(0, at + "node_modules/".length) + name, name);
  }
  return [...dirs].map(([dir, name]) => {
    const { version } = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as {
      version: string;
    };
    return { id: `${name}@${version}`, dir };
  });
}

/** The entries of a THIRD_PARTY_LICENSES file: `name@version` to the entry's text. */
export function listedEntries(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const block of text.split(/^={80}$/m)) {
    const match = /^\nPackage: (.+)\nVersion: (.+)$/m.exec(block);
    if (match) entries.set(`${match[1]}@${match[2]}`, block);
  }
  return entries;
}

export function listedPackages(text: string): string[] {
  return [...listedEntries(text).keys()];
}

export function missingFrom(text: string, ids: string[]): string[] {
  const listed = listedEntries(text);
  return ids.filter((id) => !listed.has(id));
}
