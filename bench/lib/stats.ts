// Small numeric helpers shared by the benchmarks.

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

/** "median (min–max)" with a fixed number of decimals. */
export function spread(values: readonly number[], decimals = 0): string {
  if (values.length === 0) return 'n/a';
  const f = (v: number) => v.toFixed(decimals);
  return `${f(median(values))} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
}
