// A full garbage collection whenever the heap and its array buffers have grown by GROWTH_BYTES since the last one,
// checked once a second. Under a steady token load V8 could go the whole load without a full collection: the old
// generation grew slowly towards its limit while promoted ArrayBuffers (request bodies, signatures, database reads)
// counted as external memory, which V8 collects for only after tens of megabytes. In one run of four 8-second rounds
// a worker went from 104 to 160 MB RSS and dropped back at its next full collection; under introspection's load a
// worker reached 215–227 MB in two runs of three, against 132–134 MB in every run with this check. Each collection
// it asks for takes 20–30 ms of the event loop (docs/decisions.md, "A minute of load").
//
// It needs V8's `gc` function, which Node exposes only when started with --expose-gc: the launcher's shebang
// (src/gatehouse.mjs) and the release executable (packaging/build/sea.ts) pass it. Started any other way (tests,
// `node src/main.ts`) there is no such function and the keeper does nothing.

/** What must be added since the last full collection before another is asked for. */
export const GROWTH_BYTES = 8 * 1024 * 1024;
export const CHECK_INTERVAL_MS = 1_000;
/**
 * At most one collection it asks for in this time. A path that answers ten thousand requests a second grows the
 * heap by tens of megabytes between two checks, and V8 collects for it by itself; a collection asked for on every
 * check there (about 25 ms each) raised introspection's CPU per request by half in one experiment. One per five
 * seconds costs at most 0.5 % of the event loop.
 */
export const MIN_SPACING_MS = 5_000;

export interface MemoryKeeperDeps {
  /** A full collection; absent when the process was started without --expose-gc. */
  collect: (() => void) | undefined;
  /** Bytes the heap holds plus array buffers' memory: what a full collection can give back. */
  measure: () => number;
  /** Milliseconds on a monotonic clock. */
  now: () => number;
  setInterval: (run: () => void, ms: number) => { unref(): void };
  clearInterval: (timer: { unref(): void }) => void;
}

const processDeps = (): MemoryKeeperDeps => ({
  collect: (globalThis as { gc?: () => void }).gc,
  measure: () => {
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  },
  now: () => performance.now(),
  setInterval,
  clearInterval: (timer) => clearInterval(timer as NodeJS.Timeout),
});

export interface MemoryKeeper {
  /** Collections the keeper has asked for. */
  readonly collections: number;
  stop(): void;
}

export function startMemoryKeeper(deps: MemoryKeeperDeps = processDeps()): MemoryKeeper {
  const { collect, measure } = deps;
  let collections = 0;
  if (!collect) return { collections, stop() {} };
  // The lowest size seen: V8's own full collections lower it too, so only growth since the last of any counts.
  let floor = measure();
  let lastCollection = -Infinity;
  const timer = deps.setInterval(() => {
    const size = measure();
    if (size < floor) floor = size;
    if (size - floor <= GROWTH_BYTES || deps.now() - lastCollection < MIN_SPACING_MS) return;
    collect();
    collections += 1;
    lastCollection = deps.now();
    // What survived is live (caches filling up, connections): the next collection waits for growth beyond it.
    floor = measure();
  }, CHECK_INTERVAL_MS);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    stop: () => deps.clearInterval(timer),
  };
}
