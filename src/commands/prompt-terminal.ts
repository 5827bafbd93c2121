/**
 * The terminal as the prompt library (@clack/prompts) gets it: keys from stdin,
 * drawing on stderr, with two corrections.
 *
 * - End of input cancels, as Ctrl-C does: Ctrl-D (0x04 in raw mode) becomes
 *   Ctrl-C, and stdin ending (Ctrl-D between two prompts, a terminal that went
 *   away) sends one. Left alone, readline closes itself on Ctrl-D, the prompt
 *   never answers, and the process would end with exit 0 and nothing said.
 * - Without colour for stderr (`--no-color`), colour sequences are dropped: the
 *   library colours with util.styleText, which knows NO_COLOR and TERM=dumb but
 *   not the flag. Cursor movement stays, or a prompt could not redraw itself.
 */
import { PassThrough, type Readable, type Writable } from "node:stream";

const CTRL_C = 0x03;
const CTRL_D = 0x04;

// SGR sequences only.
// eslint-disable-next-line no-control-regex
const SGR = /\u001b\[[0-9;]*m/g;

export interface PromptTerminal {
  input: Readable;
  output: Writable;
  /** Stops reading stdin, so the process can end. */
  close(): void;
}

function withoutColour(target: NodeJS.WriteStream): Writable {
  const plain = {
    write: (chunk: string | Uint8Array) => target.write(String(chunk).replace(SGR, "")),
    on: (event: string, listener: () => void) => (target.on(event, listener), plain),
    off: (event: string, listener: () => void) => (target.off(event, listener), plain),
    get columns() {
      return target.columns;
    },
    get rows() {
      return target.rows;
    },
    isTTY: true,
  };
  return plain as unknown as Writable;
}

export function promptTerminal(
  streams: { input: NodeJS.ReadStream; output: NodeJS.WriteStream },
  colour: boolean,
): PromptTerminal {
  const stdin = streams.input;
  const keys = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: (mode: boolean) => stdin.setRawMode(mode),
  });
  const onData = (chunk: Buffer) => {
    // 0x04 is never part of a UTF-8 sequence: it can only be the key itself.
    keys.write(chunk.map((byte) => (byte === CTRL_D ? CTRL_C : byte)));
  };
  const onEnd = () => keys.write(Buffer.of(CTRL_C));
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  return {
    input: keys,
    output: colour ? streams.output : withoutColour(streams.output),
    close() {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.pause();
    },
  };
}
