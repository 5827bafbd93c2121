/**
 * Time limits of the suite. They detect a hang; they are not benchmarks (speed
 * goals live in bench/). Each is sized so that the suite passes on a loaded
 * 2-core machine, with a second copy of the suite running beside it.
 */

/** Any test or hook: several times what the slowest ordinary test takes there. */
export const HANG_MS = 120_000;

/** A step that builds, installs or compiles (esbuild, npm install, tsc, a binary). */
export const HEAVY_HANG_MS = 600_000;
