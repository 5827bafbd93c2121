/**
 * `petstore add` on a real terminal (tmux), typed key by key: it asks for what the
 * flags leave out, checks each answer with the flag's schema, shows the request
 * and asks to confirm; Ctrl-C, Ctrl-D and "no" send nothing; without a terminal,
 * or told not to, it never asks. What reached the service is read back from it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/server/server.js";
import { REPO_ROOT } from "../server/cli-build.js";
import { CLI } from "./cli.js";
import { PRO_KEY, startFake, tempDir } from "./harness.js";
import { shellQuote, stopTmux, TerminalSession } from "./tmux.js";

const ESC = String.fromCharCode(27);
/** What a person at the prompt should never have to read. */
const DEVELOPER_WORDS = /int64|integer|JSON|non-blank|string/;

let server: RunningServer;
let home: ReturnType<typeof tempDir>;
let session: TerminalSession | undefined;

beforeEach(async () => {
  server = await startFake();
  home = tempDir();
});
afterEach(async () => {
  await session?.kill();
  session = undefined;
  await server?.close();
  home?.remove();
});
afterAll(stopTmux);

/** `petstore <args>` on the terminal, with a clean environment pointed at the fake. */
async function petstore(
  args: string,
  options: {
    env?: Record<string, string>;
    around?: (cli: string) => string;
    size?: { columns: number; rows: number };
  } = {},
): Promise<TerminalSession> {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TERM: "xterm-256color",
    PETSTORE_CONFIG_DIR: home.path,
    PETSTORE_BASE_URL: server.url,
    PETSTORE_API_KEY: PRO_KEY,
    ...options.env,
  };
  const assignments = Object.entries(env).map(([key, value]) => shellQuote(`${key}=${value}`));
  const cli = `env -i ${assignments.join(" ")} ${shellQuote(CLI[0])} ${shellQuote(CLI[1])} ${args}`;
  session = await TerminalSession.start(options.around ? options.around(cli) : cli, options.size);
  return session;
}

/**
 * Environment for a run that records each bundle file it requires (dist/*.cjs), to
 * tell whether the prompts were loaded; `loaded()` reads the record.
 */
function tracingBundles(): { env: Record<string, string>; loaded(): string } {
  const tracer = join(home.path, "trace-bundles.cjs");
  const trace = join(home.path, "bundles.txt");
  writeFileSync(
    tracer,
    `const Module = require("node:module");
const load = Module._load;
Module._load = function (request, ...rest) {
  if (request.endsWith(".cjs")) require("node:fs").appendFileSync(${JSON.stringify(trace)}, request + "\\n");
  return load.call(this, request, ...rest);
};
`,
  );
  writeFileSync(trace, "");
  return {
    env: { NODE_OPTIONS: `--require ${tracer}` },
    loaded: () => readFileSync(trace, "utf8"),
  };
}

/** The pets the service holds, as it lists them. */
async function petsOnServer(): Promise<unknown[]> {
  const response = await fetch(`${server.url}/pets?limit=100`, {
    headers: { authorization: `Bearer ${PRO_KEY}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as unknown[];
}

describe("petstore add on a terminal", () => {
  it("asks for all three fields, shows the request, and adds the pet; stdout holds only the id", async () => {
    const term = await petstore("add -q", { around: (cli) => `id=$(${cli}); echo "[id=$id]"` });
    await term.waitFor("Name");
    await term.type("Rex the 2nd");
    await term.press("Enter");
    await term.waitFor("Category id");
    await term.type("7");
    await term.press("Enter");
    const status = await term.waitFor("Status");
    // available is preselected; pending is one key down.
    expect(status).toMatch(/● available\s*\n.*○ pending/);
    await term.press("Down", "Enter");
    const summary = await term.waitFor("Add this pet?");
    // The pet as a person reads it, and the service it goes to; not the request.
    expect(summary).toMatch(/│ {2}Name {6}Rex the 2nd +│/);
    expect(summary).toMatch(/│ {2}Category {2}7 +│/);
    expect(summary).toMatch(/│ {2}Status {4}pending +│/);
    expect(summary).toContain(`Service   production, ${server.url}`);
    expect(summary).not.toContain("POST");
    expect(summary).not.toContain('{"name"');
    await term.press("Enter");
    const { code, screen } = await term.exit();
    expect(code).toBe(0);
    const pets = await petsOnServer();
    expect(pets).toEqual([{ id: 1, name: "Rex the 2nd", categoryId: 7, status: "pending" }]);
    expect(screen).toContain("[id=1]");
  });

  it("asks only for what the flags leave out, with available preselected", async () => {
    const bundles = tracingBundles();
    const term = await petstore("add -n Tom -c 2", { env: bundles.env });
    await term.waitFor("Status");
    await term.press("Enter");
    await term.waitFor("Add this pet?");
    await term.press("Enter");
    const { code, screen } = await term.exit();
    expect(code).toBe(0);
    expect(screen).not.toMatch(/^◇ {2}Name$/m);
    expect(screen).not.toContain("Category id");
    expect(screen).toMatch(/1\s+Tom\s+2\s+available/);
    expect(await petsOnServer()).toEqual([
      { id: 1, name: "Tom", categoryId: 2, status: "available" },
    ]);
    expect(bundles.loaded()).toMatch(/(^|\/)prompts\.cjs$/m);
  });

  it("asks again for a name the schema rejects, saying why in a person's words", async () => {
    const term = await petstore("add -c 3 -s sold");
    await term.waitFor("Name");
    await term.press("Enter");
    await term.waitFor(/^└ {2}The name can't be empty\s*$/m);
    await term.type("   ");
    await term.press("Enter");
    const screen = await term.waitFor(/^└ {2}The name can't be only spaces\s*$/m);
    expect(screen).not.toMatch(DEVELOPER_WORDS);
    await term.press("BSpace", "BSpace", "BSpace");
    await term.type("Max");
    await term.press("Enter");
    await term.waitFor("Add this pet?");
    await term.press("Enter");
    expect((await term.exit()).code).toBe(0);
    expect(await petsOnServer()).toEqual([{ id: 1, name: "Max", categoryId: 3, status: "sold" }]);
  });

  it("asks again for a category id that is not a whole number, or out of range, on one line of the frame", async () => {
    const term = await petstore("add -n Bo -s pending");
    await term.waitFor("Category id (a whole number)");
    await term.type("abc");
    await term.press("Enter");
    const notANumber = await term.waitFor(/^└ {2}The category id is a whole number, like 3\s*$/m);
    expect(notANumber).not.toMatch(DEVELOPER_WORDS);
    await term.press("C-u");
    await term.type("9223372036854775808");
    await term.press("Enter");
    const outOfRange = await term.waitFor(
      /^└ {2}The category id is at most 9223372036854775807\s*$/m,
    );
    expect(outOfRange).not.toMatch(DEVELOPER_WORDS);
    await term.press("BSpace");
    await term.type("7");
    await term.press("Enter");
    await term.waitFor("Add this pet?");
    await term.press("Enter");
    expect((await term.exit()).code).toBe(0);
    const pets = (await petsOnServer()) as { categoryId: number }[];
    expect(pets).toHaveLength(1);
    // 9223372036854775807 as the service wrote it (JSON.parse rounds it; the text is exact).
    const raw = await fetch(`${server.url}/pets?limit=1`, {
      headers: { authorization: `Bearer ${PRO_KEY}` },
    }).then((response) => response.text());
    expect(raw).toContain('"categoryId":9223372036854775807');
  });

  it("keeps a prompt's error on one line of its frame on a narrow terminal", async () => {
    const term = await petstore("add -n Bo -s pending", { size: { columns: 40, rows: 20 } });
    await term.waitFor("Category id");
    await term.type("-9223372036854775809");
    await term.press("Enter");
    const screen = await term.waitFor(/^└ {2}The category id is at least -[0-9]+…\s*$/m);
    const lines = screen.split("\n");
    const error = lines.findIndex((line) => line.startsWith("└"));
    expect(lines[error]!.trimEnd().length).toBeLessThanOrEqual(40);
    // The frame ends with the error: nothing of it spills onto the next line.
    expect(lines[error + 1]?.trim() ?? "").toBe("");
    await term.press("C-c");
    expect((await term.exit()).code).toBe(130);
  });

  it("shows the request too with --verbose", async () => {
    const term = await petstore("add -n Rex -c 1 --verbose");
    await term.waitFor("Status");
    await term.press("Down", "Down", "Enter");
    const summary = await term.waitFor("Add this pet?");
    expect(summary).toMatch(/│ {2}Name {6}Rex +│/);
    expect(summary).toContain(`POST ${server.url}/pets`);
    expect(summary).toContain('{"name":"Rex","categoryId":1,"status":"sold"}');
    await term.press("C-c");
    expect((await term.exit()).code).toBe(130);
  });

  it('says "Not added." and exits 10, not as an error, when the confirmation is answered "no"', async () => {
    const term = await petstore("add -n Rex -c 1");
    await term.waitFor("Status");
    await term.press("Enter");
    await term.waitFor("Add this pet?");
    await term.type("n");
    const { code, screen } = await term.exit();
    expect(code).toBe(10);
    expect(screen).toMatch(/^Not added\.$/m);
    expect(screen).not.toContain("error:");
    expect(await petsOnServer()).toEqual([]);
  });

  it("exits 130 at Ctrl-C at the first prompt, sending nothing", async () => {
    const term = await petstore("add");
    await term.waitFor("Name");
    await term.type("Re");
    await term.press("C-c");
    const { code, screen } = await term.exit();
    expect(code).toBe(130);
    expect(screen).toContain("error: cancelled at a prompt; nothing was sent");
    expect(screen).not.toContain("Category id");
    expect(await petsOnServer()).toEqual([]);
  });

  it("exits 130 at Ctrl-D too, instead of ending with nothing said", async () => {
    const term = await petstore("add -n Rex -c 1");
    await term.waitFor("Status");
    await term.press("C-d");
    const { code, screen } = await term.exit();
    expect(code).toBe(130);
    expect(screen).toContain("error: cancelled at a prompt; nothing was sent");
    expect(await petsOnServer()).toEqual([]);
  });

  it("draws the prompts without colour under --no-color", async () => {
    const coloured = await petstore("add -n Rex -c 1");
    expect(await coloured.waitFor("Status", true)).toContain(`${ESC}[36m`);
    await coloured.kill();
    const plain = await petstore("add -n Rex -c 1 --no-color");
    expect(await plain.waitFor("Status", true)).not.toMatch(new RegExp(`${ESC}\\[3\\dm`));
  });
});

describe("petstore add where it must not ask", () => {
  it.each([
    ["--no-prompt", "add --no-prompt", {}],
    ["PETSTORE_NO_PROMPT=1", "add", { PETSTORE_NO_PROMPT: "1" }],
    ["stdin not a terminal", "add < /dev/null", {}],
    ["TERM=dumb, which cannot redraw a prompt", "add", { TERM: "dumb" }],
  ])("keeps the usage error naming every missing flag: %s", async (_, args, env) => {
    const term = await petstore(args, { env });
    const { code, screen } = await term.exit();
    expect(code).toBe(2);
    expect(screen).toContain("error: --name is required; --category-id is required");
    expect(screen).not.toContain("◆");
    expect(await petsOnServer()).toEqual([]);
  });

  it("sends a complete set of flags at once on a terminal, without loading the prompts", async () => {
    const bundles = tracingBundles();
    const term = await petstore("add -n Rex -c 1 -s sold", { env: bundles.env });
    const { code, screen } = await term.exit();
    expect(code).toBe(0);
    expect(screen).not.toContain("Add this pet?");
    expect(bundles.loaded()).not.toContain("prompts.cjs");
    expect(await petsOnServer()).toEqual([{ id: 1, name: "Rex", categoryId: 1, status: "sold" }]);
  });

  it.each([
    ["--file", "pet.json", '{"name":"Rex","categoryId":1}'],
    ["--from", "pets.csv", "name,categoryId\nRex,1\n"],
  ])("never asks with %s, even for a missing status", async (flag, file, content) => {
    writeFileSync(join(home.path, file), content);
    const term = await petstore(`add ${flag} ${shellQuote(join(home.path, file))}`);
    const { code, screen } = await term.exit();
    expect(code).toBe(0);
    expect(screen).not.toContain("Status");
    expect(await petsOnServer()).toEqual([
      { id: 1, name: "Rex", categoryId: 1, status: "available" },
    ]);
  });

  it("asks with PETSTORE_NO_PROMPT=0, which is off", async () => {
    const term = await petstore("add -n Tom -c 2", { env: { PETSTORE_NO_PROMPT: "0" } });
    await term.waitFor("Status");
    await term.press("C-c");
    expect((await term.exit()).code).toBe(130);
  });

  it("keeps the prompt library out of the hot bundle: it is in dist/prompts.cjs", () => {
    const { outputs } = JSON.parse(
      readFileSync(join(REPO_ROOT, "dist", "metafile.json"), "utf8"),
    ) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
    const inputsOf = (bundle: string) =>
      Object.keys(Object.entries(outputs).find(([path]) => path.endsWith(`/${bundle}`))![1].inputs);
    expect(inputsOf("cli.cjs").filter((path) => /@clack|add-prompts/.test(path))).toEqual([]);
    expect(inputsOf("prompts.cjs")).toEqual(
      expect.arrayContaining([
        "src/commands/add-prompts.ts",
        "node_modules/@clack/prompts/dist/index.mjs",
      ]),
    );
  });

  it("rejects a bad flag value before asking anything", async () => {
    const term = await petstore("add --status adopted");
    const { code, screen } = await term.exit();
    expect(code).toBe(2);
    expect(screen).toContain(
      'error: --status: the status is available, pending or sold, not "adopted"',
    );
    expect(screen).not.toContain("◆");
  });
});
