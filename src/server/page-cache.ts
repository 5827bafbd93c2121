/**
 * Ready-encoded pages of `GET /pets`. A page from the store is a fresh string of
 * many joined pieces; measuring and encoding it is most of the cost of a list
 * request, so each (status, limit) page is kept as bytes until the store's
 * revision changes (a create, or an edit of the file picked up by the store).
 */
import { PET_STATUSES } from "../schema/pet.js";
import type { ListOptions, PetStore } from "./store/types.js";

interface Page {
  bytes: Buffer;
  revision: number;
}

const STATUS_SLOT: Record<string, number> = Object.fromEntries(
  PET_STATUSES.map((status, index) => [status, index + 1]),
);

export class PageCache {
  private readonly pages = new Map<number, Page>();

  constructor(private readonly store: PetStore) {}

  page(options: ListOptions): Buffer {
    const slot =
      (options.status === undefined ? 0 : STATUS_SLOT[options.status]!) * 128 + options.limit;
    const revision = this.store.revision;
    const cached = this.pages.get(slot);
    if (cached !== undefined && cached.revision === revision) return cached.bytes;
    const bytes = Buffer.from(this.store.listJson(options));
    this.pages.set(slot, { bytes, revision });
    return bytes;
  }
}
