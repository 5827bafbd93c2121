// Writes THIRD_PARTY_LICENSES from esbuild's metafiles: every file a bundle takes
// from node_modules belongs to a package, and each such package is listed once per
// version with its declared licence and the licence files it ships with. The list
// comes from what esbuild actually read, so it cannot drift from the bundles; the
// bundles keep no legal comments (legalComments: "none"), so this file is where
// those notices go. A bundled package without a licence file fails the build.
// Why this is not esbuild-plugin-license: docs/design.md, "Licences".
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Names of the files that carry a licence or a notice: LICENSE, licence.md, LICENSE-MIT.txt, COPYING, NOTICE. */
const LICENCE_FILE = /^(licen[cs]e|copying|notice)([.-][\w.-]*)?$/i;
const RULE = "=".repeat(80);

/**
 * Licence texts a package needs beside its own, for what it holds without shipping
 * their licences, kept in scripts/licences/: jq-wasm is jq compiled to WebAssembly,
 * oniguruma inside (jq 1.8.2's COPYING, and that of its oniguruma submodule, 6.9.10).
 */
const HELD_LICENCES = { "jq-wasm": ["jq.COPYING", "oniguruma.COPYING"] };
const HELD_LICENCES_DIR = new URL("licences/", import.meta.url);

/** The inputs of several metafiles as one (the builds of one dist/ share a working directory). */
export function mergeMetafiles(metafiles) {
  return {
    inputs: Object.assign({}, ...metafiles.map((metafile) => metafile.inputs)),
    outputs: Object.assign({}, ...metafiles.map((metafile) => metafile.outputs)),
  };
}

/** The package directory an input path lies in (`node_modules/a/node_modules/@b/c`), if any. */
function packageDir(input) {
  const at = input.lastIndexOf("node_modules/");
  if (at === -1) return undefined;
  const base = at + "node_modules/".length;
  const segments = input.slice(base).split("/");
  const name = segments[0].startsWith("@") ? `${segments[0]}/${segments[1]}` : segments[0];
  return { dir: input.slice(0, base) + name, name };
}

/** The SPDX expression of a manifest, from `license` or the legacy `licenses` array. */
function declaredLicence(manifest) {
  const { license, licenses } = manifest;
  if (typeof license === "string") return license;
  if (license && typeof license.type === "string") return license.type;
  if (Array.isArray(licenses) && licenses.length > 0) {
    const types = licenses.map((entry) => entry?.type ?? String(entry));
    return types.length === 1 ? types[0] : `(${types.join(" OR ")})`;
  }
  return "not declared in its package.json";
}

/**
 * Reads one package: name, version, declared licence and licence files. `label` is
 * how errors name the directory. Throws when there is nothing to list.
 */
export async function readPackage(dir, label = dir, expectedName = undefined, extraFiles = []) {
  let manifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
  } catch (error) {
    throw new Error(`${label}: cannot read its package.json (${error.message})`);
  }
  if (expectedName !== undefined && manifest.name !== expectedName) {
    throw new Error(
      `${label}: its package.json names "${manifest.name}", not "${expectedName}"; ` +
        "the licence list cannot tell which package this is",
    );
  }
  const names = (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && LICENCE_FILE.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  const files = await Promise.all(
    [...names, ...extraFiles.filter((name) => !names.includes(name))].map(async (name) => {
      try {
        return { name, text: await readFile(join(dir, name), "utf8") };
      } catch (error) {
        throw new Error(`${label}: cannot read its licence file ${name} (${error.message})`);
      }
    }),
  );
  for (const name of HELD_LICENCES[manifest.name] ?? []) {
    files.push({ name, text: await readFile(new URL(name, HELD_LICENCES_DIR), "utf8") });
  }
  return {
    name: manifest.name,
    version: manifest.version,
    license: declaredLicence(manifest),
    dir: label,
    files,
  };
}

/**
 * Every third-party package whose files `metafile` lists as inputs, sorted by name
 * and version. Inputs in the project's own tree (src/) and in plugin namespaces
 * (`vendor:...`) are the project's. Throws one error naming every package that has
 * no licence text, and any bundled file from outside both the project and node_modules.
 */
export async function bundledPackages(root, metafile) {
  const dirs = new Map();
  const problems = [];
  for (const input of Object.keys(metafile.inputs)) {
    const found = packageDir(input);
    if (found) dirs.set(found.dir, found.name);
    else if (input.startsWith("../") || input.startsWith("/")) {
      problems.push(`${input} is outside the project and outside node_modules`);
    }
  }
  const packages = [];
  for (const [dir, name] of dirs) {
    try {
      const pkg = await readPackage(join(root, dir), dir, name);
      if (pkg.files.length === 0) {
        problems.push(
          `${pkg.name}@${pkg.version} (${dir}, licence ${pkg.license}) is bundled but ships ` +
            "no LICENSE, LICENCE, COPYING or NOTICE file",
        );
      }
      packages.push(pkg);
    } catch (error) {
      problems.push(error.message);
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `THIRD_PARTY_LICENSES cannot be complete:\n  ${problems.join("\n  ")}\n` +
        "Every bundled file must come from the project or from a package with its licence text.",
    );
  }
  const unique = new Map(packages.map((pkg) => [`${pkg.name}@${pkg.version}`, pkg]));
  return [...unique.values()].sort(
    (a, b) => compare(a.name, b.name) || compare(a.version, b.version),
  );
}

/**
 * Packages shipped as copied files rather than through a bundle (`[{ name,
 * licenceFiles }]`, each in node_modules/<name>), read like bundled ones, with
 * `licenceFiles` beside their LICENSE and NOTICE. Throws for one without a licence text.
 */
export async function copiedPackages(root, copied) {
  return Promise.all(
    copied.map(async ({ name, licenceFiles = [] }) => {
      const dir = `node_modules/${name}`;
      const pkg = await readPackage(join(root, dir), dir, name, licenceFiles);
      if (!pkg.files.some((file) => LICENCE_FILE.test(file.name))) {
        throw new Error(
          `THIRD_PARTY_LICENSES cannot be complete: ${pkg.name}@${pkg.version} (${dir}) is ` +
            "shipped but has no LICENSE, LICENCE, COPYING or NOTICE file",
        );
      }
      return pkg;
    }),
  );
}

/** Bundled and copied packages as one list, sorted by name and version, each once. */
export function allPackages(...lists) {
  const unique = new Map(lists.flat().map((pkg) => [`${pkg.name}@${pkg.version}`, pkg]));
  return [...unique.values()].sort(
    (a, b) => compare(a.name, b.name) || compare(a.version, b.version),
  );
}

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The file's text: the heading, then one block per package. */
export function renderLicences(packages, heading) {
  const blocks = packages.map((pkg) =>
    [
      RULE,
      `Package: ${pkg.name}`,
      `Version: ${pkg.version}`,
      `License: ${pkg.license}`,
      ...pkg.files.flatMap((file) => ["", `--- ${file.name} ---`, "", file.text.trimEnd()]),
      "",
    ].join("\n"),
  );
  return `${heading.trimEnd()}\n\n${blocks.join("\n")}${RULE}\n`;
}

/**
 * Generates `file` for the bundles described by `metafile` and the `copied`
 * packages (see copiedPackages); `first` entries (read with readPackage) lead.
 */
export async function writeThirdPartyLicenses({
  root,
  metafile,
  file,
  heading,
  first = [],
  copied = [],
}) {
  const packages = [
    ...first,
    ...allPackages(await copiedPackages(root, copied), await bundledPackages(root, metafile)),
  ];
  await writeFile(file, renderLicences(packages, heading));
  return packages;
}
