/**
 * Reading HTTP/1.1 answers from a byte stream, incrementally: the head (status
 * line and headers), then a body framed by Content-Length, by chunked transfer
 * coding, or by the end of the connection. Only what a client of a JSON API
 * needs; anything malformed is an error rather than a guess.
 */

export class AnswerFormatError extends Error {
  override readonly name = "AnswerFormatError";
}

export interface AnswerHead {
  status: number;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The connection may carry another request after this answer. */
  keepAlive: boolean;
}

export interface ParsedAnswer extends AnswerHead {
  body: Buffer;
}

const MAX_HEAD_BYTES = 64 * 1024;
const CRLF = Buffer.from("\r\n");
const HEAD_END = Buffer.from("\r\n\r\n");

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Done,
}

function parseHead(text: string): AnswerHead {
  let end = text.indexOf("\r\n");
  if (end === -1) end = text.length;
  const match = /^HTTP\/1\.([01]) ([1-9][0-9]{2})(?: .*)?$/.exec(text.slice(0, end));
  if (!match) throw new AnswerFormatError("not an HTTP/1.x status line");
  // A plain object: the same few names in the same order every time share one
  // shape (a null-prototype object would be a hash table per answer). So a name
  // Object.prototype has is looked up as an own property only, and `__proto__` is dropped.
  const headers: Record<string, string> = {};
  let start = end + 2;
  while (start <= text.length) {
    let stop = text.indexOf("\r\n", start);
    if (stop === -1) stop = text.length;
    const colon = text.indexOf(":", start);
    if (colon <= start || colon >= stop) throw new AnswerFormatError("a malformed header line");
    const name = text.slice(start, colon).trim().toLowerCase();
    const value = text.slice(colon + 1, stop).trim();
    start = stop + 2;
    if (name === "__proto__") continue;
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  }
  const connection = (headers.connection ?? "").toLowerCase();
  const keepAlive =
    match[1] === "1" ? !connection.includes("close") : connection.includes("keep-alive");
  return { status: Number(match[2]), headers, keepAlive };
}

const NO_BYTES = Buffer.alloc(0);
const LENGTH = /^[0-9]{1,15}$/;

/**
 * The usual case in one step: a chunk that is exactly one final answer framed by
 * Content-Length. Anything else (undefined) goes through the state machine.
 */
function wholeAnswer(chunk: Buffer, maxBodyBytes: number): ParsedAnswer | undefined {
  const at = chunk.indexOf(HEAD_END);
  if (at === -1 || at > MAX_HEAD_BYTES) return undefined;
  const head = parseHead(chunk.toString("latin1", 0, at));
  const length = head.headers["content-length"];
  if (
    head.status < 200 ||
    head.status === 204 ||
    head.status === 304 ||
    head.headers["transfer-encoding"] !== undefined ||
    length === undefined ||
    !LENGTH.test(length)
  ) {
    return undefined;
  }
  const bytes = Number(length);
  if (bytes > maxBodyBytes || chunk.length !== at + 4 + bytes) return undefined;
  return {
    status: head.status,
    headers: head.headers,
    keepAlive: head.keepAlive,
    body: chunk.subarray(at + 4),
  };
}

export class AnswerParser {
  private state = State.Head;
  private buffered: Buffer = NO_BYTES;
  private head: AnswerHead | undefined;
  private body: Buffer[] = [];
  private bodyBytes = 0;
  private remaining = 0;

  constructor(private readonly maxBodyBytes: number) {}

  /** Feeds bytes; returns the answer once complete. Bytes after it are an error. */
  push(chunk: Buffer): ParsedAnswer | undefined {
    if (this.state === State.Head && this.buffered.length === 0) {
      const whole = wholeAnswer(chunk, this.maxBodyBytes);
      if (whole !== undefined) {
        this.state = State.Done;
        return whole;
      }
    }
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const progressed = this.step();
      if (this.state === State.Done) {
        if (this.buffered.length > 0) throw new AnswerFormatError("more bytes than one answer");
        const body = this.body.length === 1 ? this.body[0]! : Buffer.concat(this.body);
        return { ...this.head!, body };
      }
      if (!progressed) return undefined;
    }
  }

  /** The connection ended: completes an answer framed by the end of the connection. */
  end(): ParsedAnswer | undefined {
    if (this.state !== State.UntilClose) return undefined;
    this.state = State.Done;
    return { ...this.head!, keepAlive: false, body: Buffer.concat(this.body) };
  }

  private take(bytes: Buffer): void {
    this.bodyBytes += bytes.length;
    if (this.bodyBytes > this.maxBodyBytes) throw new AnswerFormatError("an answer too large");
    this.body.push(bytes);
  }

  private line(): string | undefined {
    const at = this.buffered.indexOf(CRLF);
    if (at === -1) {
      if (this.buffered.length > MAX_HEAD_BYTES) throw new AnswerFormatError("a line too long");
      return undefined;
    }
    const text = this.buffered.subarray(0, at).toString("latin1");
    this.buffered = this.buffered.subarray(at + 2);
    return text;
  }

  /** One step of the state machine; false when it needs more bytes. */
  private step(): boolean {
    switch (this.state) {
      case State.Head: {
        const at = this.buffered.indexOf(HEAD_END);
        if (at === -1) {
          if (this.buffered.length > MAX_HEAD_BYTES)
            throw new AnswerFormatError("headers too large");
          return false;
        }
        const head = parseHead(this.buffered.subarray(0, at).toString("latin1"));
        this.buffered = this.buffered.subarray(at + 4);
        if (head.status < 200) {
          if (head.status === 101) throw new AnswerFormatError("an unexpected protocol switch");
          return true; // 100 Continue, 103 Early Hints: the real answer follows.
        }
        this.head = head;
        const encoding = head.headers["transfer-encoding"];
        const length = head.headers["content-length"];
        if (head.status === 204 || head.status === 304) {
          this.state = State.Done;
        } else if (encoding !== undefined) {
          if (!/(^|,)\s*chunked\s*$/i.test(encoding)) {
            throw new AnswerFormatError(`an unsupported transfer coding (${encoding})`);
          }
          this.state = State.ChunkSize;
        } else if (length !== undefined) {
          if (!LENGTH.test(length)) throw new AnswerFormatError("a malformed Content-Length");
          this.remaining = Number(length);
          if (this.remaining > this.maxBodyBytes)
            throw new AnswerFormatError("an answer too large");
          this.state = this.remaining === 0 ? State.Done : State.Length;
        } else {
          this.state = State.UntilClose;
          head.keepAlive = false;
        }
        return true;
      }
      case State.Length: {
        if (this.buffered.length === 0) return false;
        const piece = this.buffered.subarray(0, this.remaining);
        this.buffered = this.buffered.subarray(piece.length);
        this.take(piece);
        this.remaining -= piece.length;
        if (this.remaining === 0) this.state = State.Done;
        return true;
      }
      case State.ChunkSize: {
        const text = this.line();
        if (text === undefined) return false;
        const size = /^([0-9a-fA-F]{1,8})\s*(;.*)?$/.exec(text);
        if (!size) throw new AnswerFormatError("a malformed chunk size");
        this.remaining = parseInt(size[1]!, 16);
        this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
        return true;
      }
      case State.ChunkData: {
        if (this.buffered.length === 0) return false;
        const piece = this.buffered.subarray(0, this.remaining);
        this.buffered = this.buffered.subarray(piece.length);
        this.take(piece);
        this.remaining -= piece.length;
        if (this.remaining === 0) this.state = State.ChunkDataEnd;
        return true;
      }
      case State.ChunkDataEnd: {
        const text = this.line();
        if (text === undefined) return false;
        if (text !== "") throw new AnswerFormatError("a chunk longer than its size");
        this.state = State.ChunkSize;
        return true;
      }
      case State.Trailers: {
        const text = this.line();
        if (text === undefined) return false;
        if (text === "") this.state = State.Done;
        return true;
      }
      case State.UntilClose: {
        if (this.buffered.length === 0) return false;
        this.take(this.buffered);
        this.buffered = NO_BYTES;
        return true;
      }
      case State.Done:
        return false;
    }
  }
}
