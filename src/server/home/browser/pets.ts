/**
 * The pets table with its status filter, read from /__home/pets (the same list
 * as GET /v1/pets, without a key, for this machine only): the first 100.
 */
import { call, parseExact } from "./admin.js";
import { byId, el, fillRows } from "./dom.js";
import type { Pet } from "./types.js";

const PAGE = 100;

export class PetsPanel {
  private status = "";
  private loading: Promise<void> | undefined;
  private again = false;

  constructor(private readonly url: string) {
    for (const button of byId("pet-filters").querySelectorAll<HTMLButtonElement>("button")) {
      button.addEventListener("click", () => {
        this.status = button.dataset.status ?? "";
        for (const other of byId("pet-filters").querySelectorAll("button")) {
          other.setAttribute("aria-pressed", String(other === button));
        }
        void this.refresh();
      });
    }
  }

  /** Reloads the table; a call while one is running reloads once more after it. */
  refresh(): Promise<void> {
    if (this.loading !== undefined) {
      this.again = true;
      return this.loading;
    }
    this.loading = this.load().finally(() => {
      this.loading = undefined;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const status = this.status;
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (status !== "") query.set("status", status);
    const body = byId("pets").querySelector("tbody")!;
    const meta = byId("pets-meta");
    let pets: Pet[];
    try {
      pets = parseExact<Pet[]>(await call(`${this.url}?${query}`), ["id", "categoryId"]);
    } catch (error) {
      fillRows(body, [], (error as Error).message);
      meta.textContent = "";
      return;
    }
    const rows = pets.map((pet) =>
      el(
        "tr",
        { "data-id": pet.id },
        el("td", { class: "num" }, pet.id),
        el("td", { class: "name" }, pet.name),
        el("td", { class: "num" }, pet.categoryId),
        el(
          "td",
          {},
          el("span", { class: `pet-status ${pet.status ?? "none"}` }, pet.status ?? "—"),
        ),
      ),
    );
    const which = status === "" ? "" : `${status} `;
    fillRows(body, rows, `no ${which}pets`);
    meta.textContent =
      pets.length === PAGE ? `first ${PAGE} ${which}pets` : `${pets.length} ${which}pets`;
  }
}
