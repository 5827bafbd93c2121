/**
 * The rows to send, read a few dozen ahead. Reading a row (parsing, checking,
 * the body and its digest) is not needed to send the rows before it, so it is
 * done right after a group of requests has left (see turns.ts), while the
 * service answers them, instead of between an answer and the next request.
 *
 * The rows wait in a ring of `size` slots and each is let go as it is handed
 * out, so memory does not grow with the input: an array emptied only once
 * drained kept every row of a run, because the read-ahead refills it first.
 */
export class RowsAhead<T> {
  private readonly ring: Array<T | undefined>;
  /** The slot of the next row to hand out. */
  private head = 0;
  private count = 0;
  private done = false;

  constructor(
    private readonly source: Generator<T>,
    private readonly size: number,
  ) {
    this.ring = new Array<T | undefined>(size);
  }

  /** Rows read and not handed out yet: never more than `size`. */
  get held(): number {
    return this.count;
  }

  next(): T | undefined {
    if (this.count === 0) this.fill();
    if (this.count === 0) return undefined;
    const row = this.ring[this.head];
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.size;
    this.count--;
    return row;
  }

  fill(): void {
    while (!this.done && this.count < this.size) {
      const next = this.source.next();
      if (next.done === true) {
        this.done = true;
        return;
      }
      this.ring[(this.head + this.count) % this.size] = next.value;
      this.count++;
    }
  }

  close(): void {
    this.done = true;
    this.source.return(undefined);
  }
}
