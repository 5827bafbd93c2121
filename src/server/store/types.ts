/** The pet store as the HTTP layer sees it: no HTTP here, no files here. */
import { ERROR_KIND, KindedError } from "../../schema/kinded-error.js";
import type { Pet, PetStatus } from "../../schema/pet.js";

export interface ListOptions {
  /** 1..100, already validated. */
  limit: number;
  status?: PetStatus;
}

export interface CreatedPet {
  pet: Pet;
  /** Canonical JSON of `pet`. */
  json: string;
}

export interface PetStore {
  /** JSON array text of up to `limit` pets, by id ascending, filtered by status when given. */
  listJson(options: ListOptions): string;
  /** Canonical JSON of the pet with this id, or undefined. */
  getJson(id: bigint): string | undefined;
  /**
   * Validates `body` (a parsed request body) as a NewPet, the one place a new pet is
   * validated; assigns the next id (one above the largest id ever used: stored, or
   * given to a pet since deleted or reset away; at least 1), stores the pet with
   * `status` defaulted to DEFAULT_PET_STATUS, and resolves only once the pet is
   * durable. Rejects with a StoreError when it cannot.
   */
  create(body: unknown): Promise<CreatedPet>;
  /** Number of pets stored. */
  readonly size: number;
  /** A number that changes whenever the stored pets change (creates, adopted edits, resets). */
  readonly revision: number;
  /**
   * Replaces every pet by the pets the store held when it was opened, and resolves
   * only once that is durable (a restart after it serves those pets). Creates
   * acknowledged before it are gone after it; their ids are not given out again.
   * Rejects with a StoreError when it cannot; the pets served are then unchanged.
   */
  reset(): Promise<void>;
  /** Finish pending writes, bring the JSON file exactly up to date, release the file. */
  close(): Promise<void>;
}

export type StoreErrorCode =
  /** Another process serves the same file. */
  | "locked"
  /** The file is not valid JSON; the message names line and column. */
  | "corrupt"
  /**
   * The file is JSON but not an array of valid pets (message names the pet and field);
   * for a create, the body is not a valid NewPet (message: its problems, as a client is told).
   */
  | "invalid"
  /** No id is left above the largest id used (int64 exhausted). */
  | "id_space_exhausted"
  /**
   * A create's write-ahead log write failed (a full disk, a quota, an I/O error) and was
   * undone, or the store no longer takes writes: the pet is certainly not stored.
   */
  | "not_stored"
  /** The disk refused a write or a read. */
  | "io";

export class StoreError extends KindedError {
  static override [ERROR_KIND] = "StoreError";
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}
