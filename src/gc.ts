// How often V8 collects the old generation: the one process-wide setting of the service
// (GC_HEAP_GROWTH_PERCENT), applied by src/main.ts before anything is built.
//
// Why: every uncached page is read from its socket into fresh ArrayBuffers (about 110 KB a page, in
// Node's 64 KiB reads: bench/results/page-shapes.md). Under load a page stays in flight long
// enough that most of them outlive a scavenge, are promoted, and are freed only by the next full
// collection. On a machine with this much memory V8 lets the old generation grow up to 4× between
// full collections, so at 64 concurrent pages the dead buffers piled up to ~60 MB (a forced full
// collection left 5–8 MB live), and glibc kept that RSS afterwards. With 50% growth, full
// collections run about three times as often; the live heap is small (~25 MB), so each is cheap.
// 50% is the default because it keeps peak RSS near the lowest seen without a CPU cost: growth
// below about 40% makes concurrent marking cost noticeably more CPU a page, and throughput does
// not depend on it (the runs are in bench/results/tuning.md).

import v8 from 'node:v8';

/**
 * Sets V8's heap growing factor to 1 + percent/100; 0 leaves V8's own. The flag is read at every
 * full collection, so setting it after start-up takes effect (it is not allowed in NODE_OPTIONS).
 */
export function tuneGarbageCollection(heapGrowthPercent: number): void {
  if (heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${heapGrowthPercent}`);
}
