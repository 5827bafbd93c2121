/** Small statistics for noisy samples: medians, never means. */

export function median(values) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Relative spread of the samples: (max - min) / median, to show how noisy a figure is. */
export function spread(values) {
  if (values.length < 2) return 0;
  const m = median(values);
  return m === 0 ? 0 : (Math.max(...values) - Math.min(...values)) / m;
}

/** Deterministic pseudo-random integers in [min, max], so compared runs see the same sequence. */
export function seededInts(seed, min, max) {
  let state = seed >>> 0 || 1;
  const range = max - min + 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return min + (state % range);
  };
}
