// The dependency check of `npm run lint`: the rules of .dependency-cruiser.cjs, then
// no-folder-cycle. dependency-cruiser's folder scope cannot state that rule for this tree:
// it has no node for the files at the root of src/ (they fold into `src`, whose imports
// all stay inside src/), so a cycle through src/errors.ts went unseen (docs/design.md).
// Run from the project directory (the rules test runs it on a copy of src/).
import { cruise, format } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";

/**
 * The nodes a file's imports leave from: a file at the root of src/ is a node of its
 * own; any other file leaves from its folder and each enclosing folder below src/
 * (as dependency-cruiser's folder scope counts them).
 */
function fromNodes(source) {
  const parts = source.split("/");
  if (parts.length === 2) return [source];
  return parts.slice(1, -1).map((_, i) => parts.slice(0, i + 2).join("/"));
}

/** The node an import arrives at: a root file itself, or the folder holding the file. */
function toNode(target) {
  const parts = target.split("/");
  return parts.length === 2 ? target : parts.slice(0, -1).join("/");
}

/** node -> (node it imports -> one import that makes the edge, for the message) */
function folderGraph(modules) {
  const graph = new Map();
  for (const module of modules.filter((m) => m.source.startsWith("src/"))) {
    for (const { resolved } of module.dependencies) {
      if (!resolved.startsWith("src/")) continue;
      const to = toNode(resolved);
      for (const from of fromNodes(module.source)) {
        if (from === to || resolved.startsWith(`${from}/`)) continue;
        if (!graph.has(from)) graph.set(from, new Map());
        if (!graph.get(from).has(to)) graph.get(from).set(to, `${module.source} → ${resolved}`);
      }
    }
  }
  return graph;
}

/** The shortest way from start back to itself, or undefined. */
function cycleThrough(graph, start) {
  const cameFrom = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of graph.get(node)?.keys() ?? []) {
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]));
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return undefined;
}

function folderCycles(graph) {
  const seen = new Set();
  const cycles = [];
  for (const start of [...graph.keys()].sort()) {
    if (seen.has(start)) continue;
    const cycle = cycleThrough(graph, start);
    if (cycle === undefined) continue;
    cycles.push(cycle);
    for (const node of cycle) seen.add(node);
  }
  return cycles;
}

const options = await extractDepcruiseOptions("./.dependency-cruiser.cjs");
const { output: result } = await cruise(
  ["src"],
  { ...options, validate: true },
  {},
  { tsConfig: extractTSConfig(options.tsConfig.fileName) },
);
const report = await format(result, { outputType: "err" });
const graph = folderGraph(result.modules);
const cycles = folderCycles(graph);

if (report.exitCode !== 0 || cycles.length === 0) process.stdout.write(report.output);
for (const cycle of cycles) {
  process.stdout.write(`  error no-folder-cycle: ${cycle.join(" → ")}\n`);
  for (let i = 1; i < cycle.length; i++) {
    process.stdout.write(`    ${graph.get(cycle[i - 1]).get(cycle[i])}\n`);
  }
}
if (cycles.length > 0) {
  process.stdout.write(
    `\n✖ ${cycles.length} folder cycle(s): folders (and files at the root of src/) form layers.\n`,
  );
}
process.exitCode = report.exitCode !== 0 || cycles.length > 0 ? 1 : 0;
