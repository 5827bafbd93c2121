/**
 * Each row's outcome on stdout, for scripts (`petstore add --from ... --json` or `-q`).
 *
 * `--json`: NDJSON, one line per row, written as the row's outcome is known (so in
 * the order answers arrive; `row` says which row a line is about):
 *   {"row":5,"line":6,"outcome":"added","id":123}
 *   {"row":5,"line":6,"outcome":"added","id":123,"earlier":true}    added by an earlier run (--resume)
 *   {"row":5,"line":6,"outcome":"invalid","error":{"message":"…","problems":[{"field":"status","message":"…"}]}}
 *   {"row":5,"line":6,"outcome":"failed","error":{"message":"…","status":400,"code":"…"}}
 *   {"row":5,"line":6,"outcome":"unknown","error":{"message":"…"}}       (with "earlier":true when held back)
 * Ids are int64, written exactly (never through a double).
 *
 * `-q`: the id of each added row (in this run or an earlier one), one per line, in
 * input order. Answers arrive out of order, so ids wait in a reorder buffer until
 * every row before theirs is settled. The buffer holds only rows sent in this run:
 * a row not sent (added before, invalid, held back) costs nothing, its id is looked
 * up when its turn comes. It is bounded: a row is not sent while it is WINDOW rows
 * or more ahead of the first row not yet printed (see `taken`), so one slow row
 * holds back at most WINDOW ids, never the whole input.
 *
 * Writes are gathered per turn of the event loop, as the results file's are.
 */
import type { OutputStream } from "../io.js";
import { escapeJsonControls } from "../output/text-escape.js";
import { stringifyJson } from "../schema/json.js";
import type { ErrorSummary, ResultLine } from "./result-lines.js";

export type StdoutMode = "json" | "ids";

/** The most rows that `-q` holds between the first row not yet printed and the last sent. */
export const WINDOW = 4096;

/** Output gathered beyond this is written at once rather than at the end of the turn. */
const FLUSH_BYTES = 64 * 1024;

const UNKNOWN_BEFORE: ErrorSummary = {
  message:
    "an earlier run sent this row and its outcome is unknown; it was not sent again (--retry-unknown sends it)",
};

export class OutcomeStream {
  private pending = "";
  private scheduled = false;
  /** -q: the first row not yet printed (or passed over: a row without an id to print). */
  private next = 1;
  /** -q: the last row taken by a sender; every row up to it that is not sending was not sent. */
  private lastTaken = 0;
  /** -q: the last row this run reached (taken, or passed over for a reason). */
  private reached = 0;
  private readonly sending = new Set<number>();
  /** -q: rows sent and settled, not yet printed: their id, or undefined when not added. */
  private readonly finished = new Map<number, bigint | undefined>();
  /** -q: rows waiting for room, in row order. */
  private readonly waiting: Array<{ row: number; resume: () => void }> = [];

  /** @param idBefore the id of a row an earlier run added (--resume), else undefined. */
  constructor(
    private readonly mode: StdoutMode,
    private readonly out: OutputStream,
    private readonly idBefore: (row: number) => bigint | undefined,
    private readonly window = WINDOW,
  ) {}

  /** -q: rows held, for the tests of the bound. */
  get held(): number {
    return this.finished.size + this.sending.size;
  }

  /**
   * A sender takes the row (called in row order, as rows are taken). When a
   * promise is returned, the row must wait for it before it is sent.
   */
  taken(row: number): Promise<void> | undefined {
    if (this.mode === "json") return undefined;
    this.lastTaken = row;
    this.reach(row);
    this.sending.add(row);
    this.release(row - 1);
    if (row < this.next + this.window) return undefined;
    return new Promise((resume) => this.waiting.push({ row, resume }));
  }

  /** Its sender is done with the row, whatever became of it (called for every taken row). */
  settled(row: number): void {
    this.finish(row, undefined);
  }

  added(row: number, line: number, id: bigint | undefined): void {
    if (this.mode === "ids") return this.finish(row, id);
    const idText = id === undefined ? "" : `,"id":${id}`;
    this.write(`{"row":${row},"line":${line},"outcome":"added"${idText}}\n`);
  }

  /** An `invalid`, `failed` or `unknown` row: the line the results file gets. */
  record(result: ResultLine): void {
    if (this.mode === "ids") return this.reach(result.row);
    const problems = result.problems ?? [];
    const error: unknown =
      result.outcome !== "invalid"
        ? result.error
        : {
            message: problems
              .map((p) => (p.field === undefined ? p.message : `${p.field} ${p.message}`))
              .join("; "),
            problems,
          };
    this.writeJson({ row: result.row, line: result.line, outcome: result.outcome, error });
  }

  /** A row not sent again because an earlier run added it. */
  addedBefore(row: number, line: number, id: bigint | undefined): void {
    if (this.mode === "ids") return this.reach(row);
    this.writeJson({ row, line, outcome: "added", id, earlier: true });
  }

  /** A row not sent again because an earlier run sent it and its outcome is unknown. */
  unknownBefore(row: number, line: number): void {
    if (this.mode === "ids") return this.reach(row);
    this.writeJson({ row, line, outcome: "unknown", earlier: true, error: UNKNOWN_BEFORE });
  }

  /** The run is over: all that is known goes out. */
  end(): void {
    this.sending.clear();
    this.release(this.reached);
    this.flush();
  }

  private writeJson(value: Record<string, unknown>): void {
    this.write(escapeJsonControls(stringifyJson(value)) + "\n");
  }

  private write(text: string): void {
    this.pending += text;
    if (this.pending.length >= FLUSH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  private flush(): void {
    if (this.pending === "") return;
    const text = this.pending;
    this.pending = "";
    this.out.write(text);
  }

  private reach(row: number): void {
    if (row > this.reached) this.reached = row;
  }

  private finish(row: number, id: bigint | undefined): void {
    if (!this.sending.delete(row)) return;
    this.finished.set(row, id);
    this.release(this.lastTaken);
  }

  /** Prints the ids of the rows from `next` on, up to `upTo`, until a row still sending. */
  private release(upTo: number): void {
    let text = "";
    while (this.next <= upTo && !this.sending.has(this.next)) {
      const row = this.next++;
      const id = this.finished.has(row) ? this.finished.get(row) : this.idBefore(row);
      this.finished.delete(row);
      if (id !== undefined) text += `${id}\n`;
    }
    if (text !== "") this.write(text);
    while (this.waiting.length > 0 && this.waiting[0]!.row < this.next + this.window) {
      this.waiting.shift()!.resume();
    }
  }
}
