/**
 * A real pseudo-terminal driven keystroke by keystroke: tmux runs a command in a
 * detached session (on a tmux server of the test file's own, so no other tmux is
 * touched), `send-keys` types, `capture-pane` reads the screen. The command's
 * exit code is printed after it as `[exit N]`, and the pane stays open to be read.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** One tmux server per test file, on a socket in a directory of its own. */
const SOCKET_DIR = mkdtempSync(join(tmpdir(), "petstore-tmux-"));
const SOCKET = join(SOCKET_DIR, "socket");
const POLL_MS = 40;
const WAIT_MS = 15_000;

let sessions = 0;
let server: Promise<unknown> | undefined;

/**
 * tmux ends its server with its last session: a session that starts as another
 * ends could find it gone. One idle session keeps it up until `stopTmux()`.
 */
function serverUp(): Promise<unknown> {
  server ??= tmux("new-session", "-d", "-s", "keep", "sleep 3600");
  return server;
}

/** A word for `sh -c`, quoted whatever it holds. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

async function tmux(...args: string[]): Promise<string> {
  const { stdout } = await run("tmux", ["-S", SOCKET, "-f", "/dev/null", ...args], {
    encoding: "utf8",
  });
  return stdout;
}

export class TerminalSession {
  private constructor(readonly name: string) {}

  /** Starts `command` (a `sh -c` line) on a terminal of 120x30, or `size`. */
  static async start(
    command: string,
    size: { columns: number; rows: number } = { columns: 120, rows: 30 },
  ): Promise<TerminalSession> {
    const name = `s${++sessions}`;
    const line = `${command}; echo "[exit $?]"; sleep 3600`;
    await serverUp();
    const [x, y] = [String(size.columns), String(size.rows)];
    await tmux("new-session", "-d", "-s", name, "-x", x, "-y", y, line);
    return new TerminalSession(name);
  }

  /** Types `text` one key at a time, as a person does. */
  async type(text: string): Promise<void> {
    for (const ch of text) await tmux("send-keys", "-t", this.name, "-l", ch);
  }

  /** Presses keys by tmux name: Enter, Down, C-c, C-d, BSpace. */
  async press(...keys: string[]): Promise<void> {
    for (const key of keys) await tmux("send-keys", "-t", this.name, key);
  }

  /**
   * The screen as text; with `escapes`, with its colour and attribute sequences;
   * with `joined`, everything written since the start (the scrolled-off lines too),
   * each line the terminal wrapped as the one line it was written as.
   */
  screen(escapes = false, joined = false): Promise<string> {
    const flags = [...(escapes ? ["-e"] : []), ...(joined ? ["-J", "-S", "-"] : [])];
    return tmux("capture-pane", "-p", ...flags, "-t", this.name);
  }

  /** Polls the screen until it shows `expected`; fails after a bounded wait, showing the screen. */
  async waitFor(expected: string | RegExp, escapes = false): Promise<string> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const screen = await this.screen(escapes);
      const found =
        typeof expected === "string" ? screen.includes(expected) : expected.test(screen);
      if (found) return screen;
      if (Date.now() > deadline) {
        throw new Error(`the terminal never showed ${String(expected)}; it shows:\n${screen}`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Waits for the command to end; its exit code and the screen then. */
  async exit(): Promise<{ code: number; screen: string }> {
    const screen = await this.waitFor(/\[exit \d+\]/);
    return { code: Number(/\[exit (\d+)\]/.exec(screen)![1]), screen };
  }

  async kill(): Promise<void> {
    await tmux("kill-session", "-t", this.name).catch(() => undefined);
  }
}

/** Ends this file's tmux server (and any session a failed test left), and removes its socket. */
export async function stopTmux(): Promise<void> {
  server = undefined;
  await tmux("kill-server").catch(() => undefined);
  rmSync(SOCKET_DIR, { recursive: true, force: true });
}
