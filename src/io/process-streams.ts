/** The process's own streams: fd 1 and 2 written synchronously, and stdin. */
import { writeSync } from "node:fs";
import { isatty } from "node:tty";
import { readHiddenLine } from "./hidden-prompt.js";
import type { InputStream, OutputStream } from "./types.js";

/**
 * A process output stream written with `fs.writeSync` while it takes the data:
 * creating `process.stdout` costs a few milliseconds of a one-shot command's
 * start-up. If the descriptor is non-blocking and full (EAGAIN), the rest goes
 * through the stream, which waits for the reader. A reader that went away
 * (EPIPE, as in `petstore list | head -1`) ends the output quietly; any other
 * failure (ENOSPC on a full disk) ends it too, and `settle()` reports it.
 */
export function processStream(fd: 1 | 2, stream: () => NodeJS.WriteStream): OutputStream {
  let closed = false;
  let viaStream = false;
  let failure: NodeJS.ErrnoException | undefined;
  let pending = 0;
  const drained: (() => void)[] = [];
  const isTTY = isatty(fd);
  const fail = (error: NodeJS.ErrnoException) => {
    if (!closed && error.code !== "EPIPE") failure = error;
    closed = true;
  };
  const wrote = (error?: Error | null) => {
    if (error) fail(error);
    if (--pending > 0) return;
    for (const resolve of drained.splice(0)) resolve();
  };
  const toStream = (data: Buffer) => {
    const target = stream();
    if (!viaStream) {
      viaStream = true;
      target.on("error", fail);
    }
    pending++;
    target.write(data, wrote);
  };
  return {
    write(text) {
      if (closed) return;
      const data = Buffer.from(text, "utf8");
      if (viaStream) return toStream(data);
      let offset = 0;
      try {
        while (offset < data.length) {
          const written = writeSync(fd, data, offset);
          // A terminal that hung up can accept nothing forever: stop rather than spin.
          if (written <= 0) {
            closed = true;
            return;
          }
          offset += written;
        }
      } catch (error) {
        const failed = error as NodeJS.ErrnoException;
        if (failed.code === "EAGAIN") toStream(data.subarray(offset));
        else fail(failed);
      }
    },
    isTTY,
    get columns() {
      return isTTY ? stream().columns : undefined;
    },
    settle() {
      if (pending === 0) return Promise.resolve(failure);
      return new Promise((resolve) => drained.push(() => resolve(failure)));
    },
  };
}

export function processStdin(): InputStream {
  return {
    get isTTY() {
      return process.stdin.isTTY === true;
    },
    chunks: () => process.stdin,
    readHiddenLine: (prompt) => readHiddenLine(process.stdin, process.stderr, prompt),
  };
}
