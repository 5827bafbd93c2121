/**
 * The service's clock as seen from here. X-RateLimit-Reset is a moment on the
 * service's clock; waiting for it by the local clock would send too early when
 * the local clock is ahead, and wait too long when it is behind. Every answer's
 * Date header (whole seconds, RFC 9110) bounds the offset from below: the answer
 * was dated no later than it arrived. The largest such bound is kept, so a wait
 * computed from it never ends before the service's moment, and ends at most about
 * a second after it. Without Date headers the local clock is taken as the service's.
 */
import { parseHttpDate } from "../client/http-date.js";

export class ServerClock {
  /** A lower bound of (service time - local time), in ms; undefined until a Date header is seen. */
  private offsetMs: number | undefined;
  /** The Date header changes once a second: parse each text once. */
  private lastHeader: string | undefined;
  private lastDated: number | undefined;

  observe(dateHeader: string | undefined, receivedAtLocalMs: number): void {
    if (dateHeader !== this.lastHeader) {
      this.lastHeader = dateHeader;
      this.lastDated = parseHttpDate(dateHeader);
    }
    const dated = this.lastDated;
    if (dated === undefined) return;
    const bound = dated - receivedAtLocalMs;
    if (this.offsetMs === undefined || bound > this.offsetMs) this.offsetMs = bound;
  }

  /** The local moment by which the service's clock has certainly reached `serviceMs`. */
  toLocal(serviceMs: number): number {
    return serviceMs - (this.offsetMs ?? 0);
  }

  /** The service's time now, at the earliest (so a wait for one of its moments is never short). */
  serviceNow(localMs: number): number {
    return localMs + (this.offsetMs ?? 0);
  }

  get offset(): number | undefined {
    return this.offsetMs;
  }
}
