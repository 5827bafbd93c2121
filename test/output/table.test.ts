import { describe, expect, it } from "vitest";
import type { Column } from "../../src/output/columns.js";
import { PLAIN_PALETTE } from "../../src/output/palette.js";
import { fitColumnWidths, renderTable } from "../../src/output/table.js";

interface Row {
  id: string;
  name: string;
}

const COLUMNS: Column<Row>[] = [
  { key: "id", label: "ID", value: (row) => row.id },
  { key: "name", label: "NAME", value: (row) => row.name, shrinkable: true },
];

describe("the terminal table", () => {
  it("aligns columns under the header without borders or trailing spaces", async () => {
    const text = await renderTable(
      [
        { id: "1", name: "Rex" },
        { id: "100", name: "Tom" },
      ],
      COLUMNS,
      { palette: PLAIN_PALETTE, width: 80 },
    );
    expect(text).toBe("ID   NAME\n1    Rex\n100  Tom\n");
  });

  it("cuts a shrinkable column with an ellipsis to fit the width", async () => {
    const text = await renderTable([{ id: "1", name: "A".repeat(40) }], COLUMNS, {
      palette: PLAIN_PALETTE,
      width: 20,
    });
    const [, row] = text.split("\n");
    expect(row).toBe(`1   ${"A".repeat(15)}…`);
    expect(row!.length).toBe(20);
  });

  it.each([
    [[2, 40, 9], [false, true, false], 80, [null, null, null]],
    [[2, 40, 9], [false, true, false], 40, [null, 25, null]],
    [[2, 40, 9], [false, true, false], 10, [null, 8, null]],
    [[2, 40, 9], [false, true, false], undefined, [null, null, null]],
  ])(
    "fits natural widths %j (shrinkable %j) into %s columns as %j",
    (natural, shrinkable, width, expected) => {
      expect(fitColumnWidths(natural, shrinkable, width)).toEqual(expected);
    },
  );
});
