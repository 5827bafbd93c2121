import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { COPIED_PACKAGES } from "../../scripts/home-assets.mjs";
import {
  bundledPackages,
  copiedPackages,
  renderLicences,
} from "../../scripts/third-party-licenses.mjs";
import { REPO_ROOT } from "../server/cli-build.js";
import {
  bundledPackages as bundledIn,
  listedEntries,
  listedPackages,
  missingFrom,
} from "./licences.js";

const DIST = join(REPO_ROOT, "dist");

describe("dist/THIRD_PARTY_LICENSES", () => {
  const text = () => readFileSync(join(DIST, "THIRD_PARTY_LICENSES"), "utf8");
  const bundled = () => bundledIn(REPO_ROOT, join(DIST, "metafile.json"));
  /** Packages whose files dist/home/ ships as they are (the API reference library). */
  const copied = () =>
    COPIED_PACKAGES.map(({ name, licenceFiles }) => {
      const dir = `node_modules/${name}`;
      const manifest = readFileSync(join(REPO_ROOT, dir, "package.json"), "utf8");
      return {
        id: `${name}@${(JSON.parse(manifest) as { version: string }).version}`,
        dir,
        licenceFiles,
      };
    });

  it("lists exactly the packages the bundles take from node_modules, and those copied", () => {
    const ids = [...bundled(), ...copied()].map((pkg) => pkg.id);
    // Packages the bundles are known to take, so an empty metafile cannot pass for a complete one.
    for (const name of ["commander", "chalk", "cli-table3", "negotiator", "ora", "zod"]) {
      expect(ids.some((id) => id.startsWith(`${name}@`))).toBe(true);
    }
    expect(missingFrom(text(), ids)).toEqual([]);
    expect(listedPackages(text()).sort()).toEqual([...new Set(ids)].sort());
  });

  it("carries the licence and notices of each copied package, and of what its bundle holds", () => {
    const entries = listedEntries(text());
    for (const { id, dir, licenceFiles } of copied()) {
      const names = readdirSync(join(REPO_ROOT, dir)).filter((name) =>
        /^(licen[cs]e|notice)/i.test(name),
      );
      expect(names.length, id).toBeGreaterThan(0);
      for (const name of [...names, ...licenceFiles]) {
        const licence = readFileSync(join(REPO_ROOT, dir, name), "utf8").trim();
        expect(entries.get(id), `${id} ${name}`).toContain(licence);
      }
      for (const file of COPIED_PACKAGES.find((pkg) => id.startsWith(`${pkg.name}@`))!.files) {
        // Buffer.equals, not toEqual: a deep comparison of megabytes byte by byte takes seconds.
        const same = readFileSync(join(DIST, "home", basename(file))).equals(
          readFileSync(join(REPO_ROOT, dir, file)),
        );
        expect(same, `dist/home/${basename(file)} is ${dir}/${file} byte for byte`).toBe(true);
      }
    }
  });

  it("carries each package's own licence file, word for word, in its entry", () => {
    const entries = listedEntries(text());
    for (const { id, dir } of bundled()) {
      const licences = readdirSync(join(REPO_ROOT, dir)).filter((name) =>
        /^(licen[cs]e|copying)/i.test(name),
      );
      expect(licences, id).not.toEqual([]);
      for (const name of licences) {
        const licence = readFileSync(join(REPO_ROOT, dir, name), "utf8").trim();
        expect(entries.get(id), `${id} ${name}`).toContain(licence);
      }
    }
  });

  it("carries, in jq-wasm's entry, the licences of jq and of the oniguruma inside it", () => {
    const entry = [...listedEntries(text())].find(([id]) => id.startsWith("jq-wasm@"))?.[1];
    expect(entry).toContain("jq is copyright (C) 2012 Stephen Dolan");
    expect(entry).toContain("Copyright (c) 2002-2021  K.Kosako");
    for (const name of ["jq.COPYING", "oniguruma.COPYING"]) {
      const licence = readFileSync(join(REPO_ROOT, "scripts", "licences", name), "utf8").trim();
      expect(entry, name).toContain(licence);
    }
  });

  it("is caught by the check when a package is left out", () => {
    const listed = text();
    const dropped = bundled().find((pkg) => pkg.dir === "node_modules/commander")!.id;
    const start = listed.search(/^Package: commander$/m);
    const end = listed.indexOf("\n=====", start);
    const doctored = listed.slice(0, start) + listed.slice(end);
    expect(
      missingFrom(
        doctored,
        bundled().map((pkg) => pkg.id),
      ),
    ).toEqual([dropped]);
  });
});

describe("the licence generator", () => {
  let work: string;

  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), "petstore-licences-"));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  function pkg(dir: string, manifest: Record<string, unknown>, files: Record<string, string>) {
    mkdirSync(join(work, dir), { recursive: true });
    writeFileSync(join(work, dir, "package.json"), JSON.stringify(manifest));
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(dirname(join(work, dir, name)), { recursive: true });
      writeFileSync(join(work, dir, name), content);
    }
  }

  const metafile = (...inputs: string[]) => ({
    inputs: Object.fromEntries(inputs.map((path) => [path, { bytes: 1, imports: [] }])),
    outputs: {},
  });

  it("maps every input to its package root, scoped and nested copies included", async () => {
    pkg(
      "node_modules/plain",
      { name: "plain", version: "1.0.0", license: "MIT" },
      {
        LICENSE: "plain licence",
        "lib/esm/package.json": '{"type":"module"}',
      },
    );
    pkg(
      "node_modules/@scope/pkg",
      { name: "@scope/pkg", version: "2.0.0", license: "ISC" },
      {
        "LICENCE.md": "scoped licence",
        NOTICE: "scoped notice",
      },
    );
    pkg(
      "node_modules/plain/node_modules/dep",
      { name: "dep", version: "3.0.0", licenses: [{ type: "MIT" }, { type: "Apache-2.0" }] },
      { COPYING: "nested licence" },
    );
    pkg(
      "node_modules/dep",
      { name: "dep", version: "4.0.0", license: { type: "BSD-2-Clause" } },
      {
        "license-mit.txt": "top-level dep licence",
      },
    );
    const packages = await bundledPackages(
      work,
      metafile(
        "src/own.ts",
        "vendor:vendor:chalk",
        "node_modules/plain/lib/esm/index.js",
        "node_modules/plain/index.js",
        "node_modules/@scope/pkg/dist/a.js",
        "node_modules/plain/node_modules/dep/index.js",
        "node_modules/dep/index.js",
      ),
    );
    expect(
      packages.map(({ name, version, license, files }) => ({
        id: `${name}@${version}`,
        license,
        files: files.map((file) => [file.name, file.text]),
      })),
    ).toEqual([
      {
        id: "@scope/pkg@2.0.0",
        license: "ISC",
        files: [
          ["LICENCE.md", "scoped licence"],
          ["NOTICE", "scoped notice"],
        ],
      },
      { id: "dep@3.0.0", license: "(MIT OR Apache-2.0)", files: [["COPYING", "nested licence"]] },
      {
        id: "dep@4.0.0",
        license: "BSD-2-Clause",
        files: [["license-mit.txt", "top-level dep licence"]],
      },
      { id: "plain@1.0.0", license: "MIT", files: [["LICENSE", "plain licence"]] },
    ]);
    const rendered = renderLicences(packages, "heading line");
    expect(rendered.startsWith("heading line\n")).toBe(true);
    expect(listedPackages(rendered)).toEqual([
      "@scope/pkg@2.0.0",
      "dep@3.0.0",
      "dep@4.0.0",
      "plain@1.0.0",
    ]);
    expect(rendered).toContain("scoped notice");
  });

  it("fails, naming the package, when a bundled package carries no licence text", async () => {
    pkg("node_modules/good", { name: "good", version: "1.0.0", license: "MIT" }, { LICENSE: "x" });
    pkg(
      "node_modules/bare",
      { name: "bare", version: "0.1.0", license: "MIT" },
      {
        "README.md": "no licence here",
        "licenses/MIT": "a directory is not a licence file",
      },
    );
    await expect(
      bundledPackages(work, metafile("node_modules/good/a.js", "node_modules/bare/index.js")),
    ).rejects.toThrow(
      /\n {2}bare@0\.1\.0 \(node_modules\/bare, licence MIT\) is bundled but ships no LICENSE, LICENCE, COPYING or NOTICE file\n/,
    );
  });

  it("fails on a bundled package without a package.json or with another name", async () => {
    mkdirSync(join(work, "node_modules", "ghost"), { recursive: true });
    await expect(bundledPackages(work, metafile("node_modules/ghost/index.js"))).rejects.toThrow(
      /node_modules\/ghost: cannot read its package\.json/,
    );
    pkg("node_modules/alias", { name: "real-name", version: "1.0.0" }, { LICENSE: "x" });
    await expect(bundledPackages(work, metafile("node_modules/alias/index.js"))).rejects.toThrow(
      /node_modules\/alias: its package\.json names "real-name"/,
    );
  });

  it("reads a copied package with its extra licence files, and fails without a licence", async () => {
    pkg(
      "node_modules/copied",
      { name: "copied", version: "5.0.0", license: "Apache-2.0" },
      { LICENSE: "apache text", NOTICE: "notice text", "bundle.js.LICENSE.txt": "inner notices" },
    );
    const [read] = await copiedPackages(work, [
      { name: "copied", licenceFiles: ["bundle.js.LICENSE.txt"] },
    ]);
    expect(read!.files.map((file) => [file.name, file.text])).toEqual([
      ["LICENSE", "apache text"],
      ["NOTICE", "notice text"],
      ["bundle.js.LICENSE.txt", "inner notices"],
    ]);
    await expect(
      copiedPackages(work, [{ name: "copied", licenceFiles: ["gone.LICENSE.txt"] }]),
    ).rejects.toThrow(/node_modules\/copied: cannot read its licence file gone\.LICENSE\.txt/);
    pkg("node_modules/bare", { name: "bare", version: "1.0.0" }, { "x.LICENSE.txt": "only this" });
    await expect(
      copiedPackages(work, [{ name: "bare", licenceFiles: ["x.LICENSE.txt"] }]),
    ).rejects.toThrow(/bare@1\.0\.0 \(node_modules\/bare\) is shipped but has no LICENSE/);
  });

  it("fails on a bundled file from outside the project, whose licence it cannot tell", async () => {
    await expect(
      bundledPackages(work, metafile("src/a.ts", "../elsewhere/lib.js")),
    ).rejects.toThrow(/\.\.\/elsewhere\/lib\.js is outside the project and outside node_modules/);
  });
});
