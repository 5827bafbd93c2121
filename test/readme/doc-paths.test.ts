/**
 * The map stays true: every source file the README and docs/ name exists, and
 * every folder they name under src/ exists. A name without a folder (`retry.ts`)
 * or with part of one (`store/wal.ts`) must end the path of a file in the
 * repository; one under dist/ is built, so it must be in dist/ after the build
 * (dist/sea/ only by `npm run build:binary`: a name there must be one the binary
 * build script writes); one that starts with a package's name is that package's.
 * Every relative link leads to a file, and its #anchor to a heading there, as
 * GitHub makes anchors. The README stays short: the detail is in docs/.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import GithubSlugger from "github-slugger";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../server/cli-build.js";

const DOCUMENTS = [
  "README.md",
  ...readdirSync(join(REPO_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** A file name with an extension of code, with or without folders before it. */
const FILE_NAME = /(?<![\w@:/.-])((?:[\w.-]+\/)*[\w.-]+\.(?:ts|mts|cts|js|mjs|cjs))(?![\w/-])/g;
/** A folder under src/, as `src/server/` or `src/server/store`. */
const SRC_FOLDER = /(?<![\w/.-])(src(?:\/[\w-]+)*)\/(?![\w.-])/g;

function tracked(): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
}

function builtFiles(dir = join(REPO_ROOT, "dist")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (!entry.isDirectory()) return [relative(REPO_ROOT, path)];
    return entry.name === "sea" ? [] : builtFiles(path);
  });
}

/** dist/sea/<name> for each name the binary build writes there (it may not have run yet). */
function binaryWorkFiles(): string[] {
  const script = readFileSync(join(REPO_ROOT, "scripts", "build-binary.mjs"), "utf8");
  return [...script.matchAll(/join\(workDir, "([\w.-]+)"\)/g)].map(
    ([, name]) => `dist/sea/${name}`,
  );
}

/** Files of installed packages named as `<package>/<path>` (e.g. `undici/lib/api/x.js`). */
function packageFile(name: string): boolean {
  const [first = "", second = ""] = name.split("/");
  const packageDir = first.startsWith("@") ? `${first}/${second}` : first;
  return (
    existsSync(join(REPO_ROOT, "node_modules", packageDir, "package.json")) &&
    existsSync(join(REPO_ROOT, "node_modules", name))
  );
}

/** The names in `text` that name no file or folder of `files`. */
export function missingPaths(text: string, files: readonly string[]): string[] {
  const missing = new Set<string>();
  for (const [, name] of text.matchAll(FILE_NAME)) {
    if (files.some((file) => file === name || file.endsWith(`/${name}`))) continue;
    if (!packageFile(name!)) missing.add(name!);
  }
  for (const [, folder] of text.matchAll(SRC_FOLDER)) {
    if (!files.some((file) => file.startsWith(`${folder}/`))) missing.add(`${folder}/`);
  }
  return [...missing];
}

describe("the paths the documents name", () => {
  const files = [...tracked(), ...builtFiles(), ...binaryWorkFiles()];

  it.each(DOCUMENTS)("%s names only files and folders that exist", (document) => {
    expect(missingPaths(readFileSync(join(REPO_ROOT, document), "utf8"), files)).toEqual([]);
  });

  it("catch a file or folder that is gone, whole or by the end of its path", () => {
    const text =
      "See `src/factory.ts`, `store/wal.ts`, `src/nowhere/`, `retry.ts`, " +
      "`undici/lib/api/api-connect.js` and `undici/lib/api/api-gone.js`.";
    const some = ["src/server/store/wal.ts", "src/client/retry.ts"];
    expect(missingPaths(text, some)).toEqual([
      "src/factory.ts",
      "undici/lib/api/api-gone.js",
      "src/nowhere/",
    ]);
  });
});

/** The anchors GitHub gives the headings of a Markdown text. */
function anchors(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const headings = text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6} (.+)$/gm);
  return new Set([...headings].map(([, heading]) => slugger.slug(heading!.replaceAll("`", ""))));
}

/** The relative links of `document` (a path from the repository root) that lead nowhere. */
export function brokenLinks(document: string): string[] {
  const text = readFileSync(join(REPO_ROOT, document), "utf8");
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue;
    const [path = "", anchor] = target!.split("#");
    const file = path === "" ? document : join(dirname(document), path);
    if (!existsSync(join(REPO_ROOT, file))) broken.push(target!);
    else if (
      anchor !== undefined &&
      !anchors(readFileSync(join(REPO_ROOT, file), "utf8")).has(anchor)
    ) {
      broken.push(target!);
    }
  }
  return broken;
}

describe("the links of the documents", () => {
  it.each(DOCUMENTS)("%s links only to files and headings that exist", (document) => {
    expect(brokenLinks(document)).toEqual([]);
  });

  it("catch a missing file and a missing heading", () => {
    expect(
      anchors("# `petstore serve`: the local fake\n## Using `petstore serve` in CI\n"),
    ).toEqual(new Set(["petstore-serve-the-local-fake", "using-petstore-serve-in-ci"]));
  });

  it("keep the README within 16 KiB: what a person needs to install, run the tour, and find the rest", () => {
    expect(statSync(join(REPO_ROOT, "README.md")).size).toBeLessThanOrEqual(16 * 1024);
  });
});
