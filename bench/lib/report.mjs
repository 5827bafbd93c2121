/**
 * Result rows, the printed table and .bench/results.json. A row is one measurement: its figure,
 * the baseline measured beside it in the same run, their ratio, the goal and whether it is met.
 */

/**
 * @typedef {object} Goal
 * @property {"ratio"|"figure"} on   what the goal judges
 * @property {">="|"<="|"<"} op
 * @property {number} value
 *
 * @typedef {object} Row
 * @property {string} phase
 * @property {string} measurement
 * @property {number|null} figure
 * @property {string} unit          req/s, ms, KiB, count
 * @property {number|null} baseline
 * @property {string} [baselineLabel]
 * @property {number|null} ratio
 * @property {Goal} [goal]
 * @property {"pass"|"fail"|"info"|"n/a"|"error"} result
 * @property {string[]} notes
 */

function meets(goal, value) {
  if (value === null || !Number.isFinite(value)) return false;
  if (goal.op === ">=") return value >= goal.value;
  if (goal.op === "<=") return value <= goal.value;
  return value < goal.value;
}

/** A measured row; the ratio is figure / baseline when both exist. */
export function measured({
  phase,
  measurement,
  figure,
  unit,
  baseline = null,
  baselineLabel,
  goal,
  notes = [],
}) {
  const ratio =
    baseline !== null && Number.isFinite(baseline) && baseline !== 0 && Number.isFinite(figure)
      ? figure / baseline
      : null;
  const judged = goal ? (goal.on === "ratio" ? ratio : figure) : undefined;
  const result = goal ? (meets(goal, judged) ? "pass" : "fail") : "info";
  return { phase, measurement, figure, unit, baseline, baselineLabel, ratio, goal, result, notes };
}

/** A row that could not be measured (the server or the command is not there yet). */
export function notAvailable({ phase, measurement, unit, goal, reason }) {
  return {
    phase,
    measurement,
    figure: null,
    unit,
    baseline: null,
    ratio: null,
    goal,
    result: "n/a",
    notes: [reason],
  };
}

/** A phase that broke: loud, and counted with the missed goals. */
export function phaseError(phase, error) {
  return {
    phase,
    measurement: `${phase}: the phase failed`,
    figure: null,
    unit: "",
    baseline: null,
    ratio: null,
    result: "error",
    notes: [error instanceof Error ? error.message : String(error)],
  };
}

const grouped = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export function formatValue(value, unit) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "-";
  switch (unit) {
    case "req/s":
      return `${grouped.format(value)} req/s`;
    case "us":
      return `${value.toFixed(0)} us`;
    case "ms":
      return value < 1000 ? `${value.toFixed(1)} ms` : `${(value / 1000).toFixed(2)} s`;
    case "KiB":
      return value < 1024 * 1024
        ? `${(value / 1024).toFixed(1)} MiB`
        : `${(value / 1024 / 1024).toFixed(2)} GiB`;
    default:
      return `${grouped.format(value)}${unit ? ` ${unit}` : ""}`;
  }
}

function formatGoal(goal, unit) {
  if (!goal) return "-";
  const op = goal.op === ">=" ? "≥" : goal.op === "<=" ? "≤" : "<";
  return goal.on === "ratio"
    ? `ratio ${op} ${goal.value}`
    : `${op} ${formatValue(goal.value, unit)}`;
}

const RESULT_LABEL = { pass: "pass", fail: "FAIL", info: "info", "n/a": "n/a", error: "ERROR" };

export function renderTable(rows) {
  const notes = [];
  const header = ["measurement", "figure", "baseline", "ratio", "goal", "result"];
  const body = rows.map((row) => {
    const marks = row.notes.map((note) => {
      if (!notes.includes(note)) notes.push(note);
      return `[${notes.indexOf(note) + 1}]`;
    });
    const baseline =
      row.baseline === null
        ? "-"
        : `${formatValue(row.baseline, row.unit)}${row.baselineLabel ? ` (${row.baselineLabel})` : ""}`;
    return [
      `${row.measurement}${marks.length ? ` ${marks.join("")}` : ""}`,
      formatValue(row.figure, row.unit),
      baseline,
      row.ratio === null ? "-" : row.ratio.toFixed(3),
      formatGoal(row.goal, row.unit),
      RESULT_LABEL[row.result],
    ];
  });
  const widths = header.map((_, i) =>
    Math.max(...[header, ...body].map((cells) => cells[i].length)),
  );
  const line = (cells) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  const noteLines = notes.map((note, i) => `[${i + 1}] ${note}`);
  return [line(header), rule, ...body.map(line), "", ...noteLines].join("\n");
}

/** The closing verdict: quiet when every goal is met, loud when not. */
export function renderVerdict(rows) {
  const missed = rows.filter((row) => row.result === "fail" || row.result === "error");
  const unmeasured = rows.filter((row) => row.result === "n/a");
  const lines = [];
  if (missed.length > 0) {
    const bar = "!".repeat(72);
    lines.push(bar, `!!! ${missed.length} GOAL(S) MISSED OR BROKEN:`);
    for (const row of missed) lines.push(`!!!   ${row.measurement}: ${RESULT_LABEL[row.result]}`);
    lines.push(bar);
  } else {
    lines.push("All measured goals met.");
  }
  if (unmeasured.length > 0) {
    lines.push(`${unmeasured.length} measurement(s) not available yet (see the notes).`);
  }
  return lines.join("\n");
}
