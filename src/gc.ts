// How often V8 collects the old generation: the one process-wide setting of the service
// (GC_HEAP_GROWTH_PERCENT), applied by src/main.ts before anything is built.
//
// Why: every uncached page is read from its socket into fresh ArrayBuffers. Under load a page
// stays in flight long enough that most of them outlive a scavenge, are promoted, and are freed
// only by the next full collection; with much memory V8 lets the old generation grow severalfold
// between full collections, so dead page buffers pile up, and the allocator keeps that RSS
// afterwards. The live heap is small, so more frequent full collections are cheap. The default
// keeps peak RSS near its lowest without costing CPU per page; lower growth makes concurrent
// marking costlier (bench/results/tuning.md has the runs).

import v8 from 'node:v8';

/**
 * Sets V8's heap growing factor to 1 + percent/100; 0 leaves V8's own. The flag is read at every
 * full collection, so setting it after start-up takes effect (it is not allowed in NODE_OPTIONS).
 */
export function tuneGarbageCollection(heapGrowthPercent: number): void {
  if (heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${heapGrowthPercent}`);
}
