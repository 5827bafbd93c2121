/**
 * The access log: one line per request (time, method, path without the query,
 * status, duration). Never a header, so never a key; never the query, which is
 * where clients sometimes put secrets. Lines are buffered and written once per
 * turn of the event loop: a synchronous write to a pipe per request would cost
 * more than the request.
 */

export interface LogSink {
  write(text: string): unknown;
}

const FLUSH_AT_CHARS = 64 * 1024;
const MAX_PATH_CHARS = 200;

export class AccessLog {
  private buffer = "";
  private scheduled = false;

  constructor(
    private readonly sink: LogSink,
    /** False with --quiet: requests are not logged; notes still are. */
    readonly logsRequests: boolean,
  ) {}

  request(method: string, path: string, status: number, durationMs: number): void {
    this.append(
      `${new Date().toISOString()} ${method} ${printablePath(path)} ${status} ${durationMs.toFixed(1)}ms\n`,
    );
  }

  /** A message about the server itself (start, errors, shutdown). */
  note(message: string): void {
    this.append(`${new Date().toISOString()} ${message}\n`);
  }

  flush(): void {
    if (this.buffer === "") return;
    const text = this.buffer;
    this.buffer = "";
    this.sink.write(text);
  }

  private append(line: string): void {
    this.buffer += line;
    if (this.buffer.length >= FLUSH_AT_CHARS) {
      this.flush();
    } else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }
}

/** Paths are client-chosen: keep a log line one line, of bounded length. */
function printablePath(path: string): string {
  const shown = path.length > MAX_PATH_CHARS ? path.slice(0, MAX_PATH_CHARS) + "..." : path;
  return /[^\x21-\x7e]/.test(shown) ? JSON.stringify(shown) : shown;
}
