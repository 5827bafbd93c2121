/**
 * Ready-encoded pages of `GET /pets`. A page from the store is a fresh string of
 * many joined pieces; measuring and encoding it is most of the cost of a list
 * request, so each (status, limit) page is kept as bytes until the store changes.
 *
 * The store grows only by creates: a page is reused while the store holds the
 * same number of pets and no create has gone through this server since, and for
 * at most `maxAgeMs`, which bounds how long a page can miss an external edit of
 * the file that kept the count (the file store itself looks for edits once a second).
 */
import { PET_STATUSES } from "../schema/pet.js";
import type { ListOptions, PetStore } from "./store/types.js";

interface Page {
  bytes: Buffer;
  size: number;
  generation: number;
  madeAtMs: number;
}

export const PAGE_MAX_AGE_MS = 250;
const STATUS_SLOT: Record<string, number> = Object.fromEntries(
  PET_STATUSES.map((status, index) => [status, index + 1]),
);

export class PageCache {
  private readonly pages = new Map<number, Page>();
  private generation = 0;

  constructor(
    private readonly store: PetStore,
    private readonly maxAgeMs = PAGE_MAX_AGE_MS,
  ) {}

  page(options: ListOptions): Buffer {
    const slot =
      (options.status === undefined ? 0 : STATUS_SLOT[options.status]!) * 128 + options.limit;
    const size = this.store.size;
    const nowMs = performance.now();
    const cached = this.pages.get(slot);
    if (
      cached !== undefined &&
      cached.size === size &&
      cached.generation === this.generation &&
      nowMs - cached.madeAtMs < this.maxAgeMs
    ) {
      return cached.bytes;
    }
    const bytes = Buffer.from(this.store.listJson(options));
    this.pages.set(slot, { bytes, size, generation: this.generation, madeAtMs: nowMs });
    return bytes;
  }

  /** A pet was created: no page made before it may be served again. */
  invalidate(): void {
    this.generation++;
  }
}
