/**
 * The access log: one line per request (time, method, path without the query,
 * status, duration). Never a header, so never a key; never the query, which is
 * where clients sometimes put secrets. Lines are buffered and written every
 * 100 ms (or at 32 KiB): stderr writes are synchronous for files and pipes, and
 * one per request would cost more than the request.
 */

export type LogSink = { write(text: string): unknown };

export class AccessLog {
  private buffer = "";
  private timer: NodeJS.Timeout | undefined;
  private second = -1;
  private secondText = "";

  constructor(
    private readonly sink: LogSink,
    /** False with --quiet: requests are not logged; notes still are. */
    readonly logsRequests: boolean,
  ) {}

  /** `url` is logged without its query; `outcome`: the status sent, or what happened instead (`reset`). */
  request(method: string, url: string, outcome: number | string, durationMs: number): void {
    const query = url.indexOf("?");
    let path = query === -1 ? url : url.slice(0, query);
    // Paths are client-chosen: a log line stays one line, of bounded length.
    if (path.length > 200) path = path.slice(0, 200) + "...";
    if (/[^\x21-\x7e]/.test(path)) path = JSON.stringify(path);
    this.append(`${this.timestamp()} ${method} ${path} ${outcome} ${durationMs.toFixed(1)}ms\n`);
  }

  /** A message about the server itself (start, errors, shutdown). */
  note(message: string): void {
    this.append(`${this.timestamp()} ${message}\n`);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer !== "") this.sink.write(this.buffer);
    this.buffer = "";
  }

  private append(line: string): void {
    this.buffer += line;
    if (this.buffer.length >= 32 * 1024) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), 100).unref();
  }

  /** ISO 8601 in UTC with milliseconds; the part up to the second is made once a second. */
  private timestamp(): string {
    const nowMs = Date.now();
    const second = Math.floor(nowMs / 1000);
    if (second !== this.second) {
      this.second = second;
      this.secondText = new Date(second * 1000).toISOString().slice(0, 20);
    }
    return `${this.secondText}${String(nowMs - second * 1000).padStart(3, "0")}Z`;
  }
}
