/**
 * The README's tour, typed as written into real terminals (tmux), each numbered
 * step in a fresh shell (a new `bash` with nothing exported), with `petstore` on
 * the PATH as `npm link` puts it and a HOME of the test's own. Step 1's
 * `petstore serve` runs on a free port instead of 4010 (the port is put in
 * place of 4010 everywhere else), and staging is the same local fake. Every line
 * the README shows as output (`#   ...`) must be on the screen after its command
 * (spaces and box lines compared loosely, `…` standing for anything), every
 * command must succeed, and `petstore add`'s questions are answered as the
 * README shows them.
 */
import { mkdtempSync, rmSync, writeFileSync, chmodSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PET_STATUSES } from "../../src/schema/pet.js";
import { shellQuote, stopTmux, TerminalSession } from "../e2e/tmux.js";
import { HANG_MS } from "../limits.js";
import { BIN, ensureBuilt } from "../server/cli-build.js";

interface TourCommand {
  command: string;
  /** What the README shows after it. */
  outputs: string[];
}

interface TourStep {
  title: string;
  commands: TourCommand[];
}

const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
/** A line of the shell's prompt, which shows the exit code of the command before. */
const PROMPT = /^\[tour (\d+)\] \$( |$)/;
const PROMPT_ON_SCREEN = /^\[tour \d+\] \$/m;
const SIZE = { columns: 80, rows: 60 };

/** The tour's code block, as steps of commands with the output lines shown after each. */
function tourSteps(): TourStep[] {
  const block = README.split("## A two-minute tour")[1]!.split("```sh\n")[1]!.split("```")[0]!;
  const steps: TourStep[] = [];
  for (const line of block.split("\n")) {
    const heading = /^# (\d+\. .*)$/.exec(line);
    const output = /^# {3}(\S.*)$/.exec(line);
    if (heading) steps.push({ title: heading[1]!, commands: [] });
    else if (output)
      steps
        .at(-1)!
        .commands.at(-1)!
        .outputs.push(output[1]!.split(/\s{2,}<-/)[0]!);
    else if (line.trim() !== "" && !line.startsWith("#") && steps.length > 0) {
      steps.at(-1)!.commands.push({ command: line.split(/\s{2,}#/)[0]!.trim(), outputs: [] });
    }
  }
  return steps;
}

/** Spaces and runs of box lines compared loosely: a wider box is the same box. */
const loose = (text: string) => text.replace(/\s+/g, " ").replace(/─+/g, "─").trim();

/** Whether a screen line shows `expected` (`…` in it stands for anything). */
function shows(lines: readonly string[], expected: string): boolean {
  const pattern = new RegExp(
    loose(expected)
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*?"),
  );
  return lines.some((line) => pattern.test(loose(line)));
}

let home: string;
let env: string;
const sessions: TerminalSession[] = [];

beforeAll(async () => {
  await ensureBuilt();
  home = mkdtempSync(join(tmpdir(), "petstore-tour-"));
  // `petstore` on the PATH, as `npm link` puts it there.
  const bin = join(home, "bin");
  mkdirSync(bin);
  writeFileSync(
    join(bin, "petstore"),
    `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(BIN)} "$@"\n`,
  );
  chmodSync(join(bin, "petstore"), 0o755);
  const variables = {
    HOME: home,
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    TERM: "xterm-256color",
    PS1: "[tour $?] $ ",
  };
  env = `env -i ${Object.entries(variables)
    .map(([key, value]) => shellQuote(`${key}=${value}`))
    .join(" ")}`;
});

afterAll(async () => {
  for (const session of sessions) await session.kill();
  await stopTmux();
  rmSync(home, { recursive: true, force: true });
});

/** A new terminal with a fresh shell in the test's HOME: nothing exported, no rc file. */
async function freshShell(): Promise<TerminalSession> {
  const session = await TerminalSession.start(
    `cd ${shellQuote(home)} && ${env} bash --norc --noprofile -i`,
    SIZE,
  );
  sessions.push(session);
  await session.waitFor(PROMPT_ON_SCREEN);
  return session;
}

async function written(session: TerminalSession): Promise<string[]> {
  return (await session.screen(false, true)).split("\n");
}

/** The lines between the `n`th prompt (0-based) and the next, and the next prompt's exit code. */
async function afterPrompt(
  session: TerminalSession,
  n: number,
): Promise<{ lines: string[]; code: number } | undefined> {
  const lines = await written(session);
  const prompts = lines.flatMap((line, index) => (PROMPT.test(line) ? [index] : []));
  if (prompts.length <= n + 1) return undefined;
  const code = Number(PROMPT.exec(lines[prompts[n + 1]!]!)![1]);
  return { lines: lines.slice(prompts[n]!, prompts[n + 1]), code };
}

async function untilPrompt(session: TerminalSession, n: number) {
  const deadline = Date.now() + HANG_MS / 2;
  for (;;) {
    const done = await afterPrompt(session, n);
    if (done) return done;
    if (Date.now() > deadline) {
      throw new Error(`command ${n} never ended:\n${(await written(session)).join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The answer the README shows after a question: `│  Rex` after `◇  Name`. */
function answer(outputs: readonly string[], question: string): string {
  const at = outputs.findIndex((line) => loose(line) === `◇ ${question}`);
  expect(at, question).toBeGreaterThan(-1);
  return loose(outputs[at + 1]!).replace(/^│ /, "");
}

/** `petstore add` at its questions, answered as the README shows. */
async function answerAdd(session: TerminalSession, outputs: readonly string[]): Promise<void> {
  await session.waitFor("◆  Name");
  await session.type(answer(outputs, "Name"));
  await session.press("Enter");
  await session.waitFor("◆  Category id");
  await session.type(answer(outputs, "Category id (a whole number)"));
  await session.press("Enter");
  await session.waitFor("◆  Status");
  const status = answer(outputs, "Status") as (typeof PET_STATUSES)[number];
  const downs = PET_STATUSES.indexOf(status) - PET_STATUSES.indexOf("available");
  expect(downs).toBeGreaterThanOrEqual(0);
  for (let i = 0; i < downs; i++) await session.press("Down");
  await session.press("Enter");
  await session.waitFor("◆  Add this pet?");
  expect(answer(outputs, "Add this pet?")).toBe("Yes");
  await session.press("Enter");
}

it(
  "works as the README shows when typed step by step, each step in a fresh shell",
  async () => {
    const [serveStep, ...steps] = tourSteps();
    expect(serveStep?.commands).toHaveLength(1);
    expect(steps.map((step) => step.title.split(".")[0])).toEqual(["2", "3", "4", "5"]);

    // 1. The fake, on a free port rather than 4010.
    const server = await freshShell();
    const [serve] = serveStep!.commands;
    await server.type(`${serve!.command} --port 0`);
    await server.press("Enter");
    const started = await server.waitFor(/^http:\/\/127\.0\.0\.1:(\d+)\/v1\s*$/m);
    const port = /^http:\/\/127\.0\.0\.1:(\d+)\/v1\s*$/m.exec(started)![1]!;
    const local = (text: string) => text.replaceAll("4010", port).replaceAll("~/", `${home}/`);
    for (const output of serve!.outputs)
      expect(shows(started.split("\n"), local(output))).toBe(true);

    for (const step of steps) {
      const shell = await freshShell();
      let n = 0;
      for (const { command, outputs } of step.commands) {
        await shell.type(local(command));
        await shell.press("Enter");
        if (command === "petstore add") await answerAdd(shell, outputs);
        const { lines, code } = await untilPrompt(shell, n++);
        expect(code, `${step.title}: ${command}\n${lines.join("\n")}`).toBe(0);
        for (const output of outputs) {
          expect(
            shows(lines, local(output)),
            `${command} shows ${output}\n${lines.join("\n")}`,
          ).toBe(true);
        }
      }
    }
    // Ctrl-C stops the fake, which exits 0: the shell's prompt comes after the echoed ^C (and
    // after any line the fake writes as it stops).
    await server.press("C-c");
    const stopped = await server.waitFor(/\^C[\s\S]*\[tour \d+\] \$/);
    expect(/\^C[\s\S]*\[tour (\d+)\] \$/.exec(stopped)![1]).toBe("0");
    // About fifteen commands, typed one key at a time: twice an ordinary test's limit.
  },
  2 * HANG_MS,
);
