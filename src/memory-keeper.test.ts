// The memory keeper asks for a full collection only when the heap and its array buffers have grown by more than
// GROWTH_BYTES since the last full collection (its own or V8's), and never when Node has no `gc` to give it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CHECK_INTERVAL_MS,
  GROWTH_BYTES,
  type MemoryKeeperDeps,
  MIN_SPACING_MS,
  startMemoryKeeper,
} from './memory-keeper.ts';

const MB = 1024 * 1024;

/** A process whose size the test sets, whose collections drop it to `live`, and whose timer the test fires. */
function fakeProcess(start: number, withGc = true) {
  const state = { size: start, live: start, collected: 0, interval: 0, cleared: false, unrefed: false, now: 0 };
  let tick: (() => void) | null = null;
  const deps: MemoryKeeperDeps = {
    collect: withGc
      ? () => {
          state.collected += 1;
          state.size = state.live;
        }
      : undefined,
    measure: () => state.size,
    now: () => state.now,
    setInterval: (run, ms) => {
      tick = run;
      state.interval = ms;
      return {
        unref: () => {
          state.unrefed = true;
        },
      };
    },
    clearInterval: () => {
      state.cleared = true;
    },
  };
  // Each check comes one interval after the one before, as the timer fires them.
  return {
    state,
    deps,
    tick: () => {
      state.now += CHECK_INTERVAL_MS;
      tick?.();
    },
  };
}

describe('memory keeper', () => {
  test('collects once growth passes the bound, and not before', () => {
    const proc = fakeProcess(40 * MB);
    const keeper = startMemoryKeeper(proc.deps);
    assert.equal(proc.state.interval, CHECK_INTERVAL_MS);
    assert.ok(proc.state.unrefed, 'the timer never keeps the process alive');
    proc.state.size = 40 * MB + GROWTH_BYTES;
    proc.tick();
    assert.equal(proc.state.collected, 0);
    proc.state.size = 40 * MB + GROWTH_BYTES + 1;
    proc.tick();
    assert.equal(proc.state.collected, 1);
    assert.equal(keeper.collections, 1);
    assert.equal(proc.state.size, 40 * MB);
  });

  test('waits for growth beyond what survived a collection', () => {
    const proc = fakeProcess(40 * MB);
    const keeper = startMemoryKeeper(proc.deps);
    // Live memory grew (a cache filled): one collection, after which the larger size is the new floor.
    proc.state.live = 46 * MB;
    proc.state.size = 50 * MB;
    proc.tick();
    assert.equal(keeper.collections, 1);
    // Checks past the spacing, at exactly the bound above what survived: no collection.
    proc.state.size = 46 * MB + GROWTH_BYTES;
    for (let i = 0; i < MIN_SPACING_MS / CHECK_INTERVAL_MS; i += 1) proc.tick();
    assert.equal(keeper.collections, 1);
    proc.state.size = 46 * MB + GROWTH_BYTES + 1;
    proc.tick();
    assert.equal(keeper.collections, 2);
  });

  test('asks for at most one collection per MIN_SPACING_MS, however fast the heap grows', () => {
    const proc = fakeProcess(40 * MB);
    const keeper = startMemoryKeeper(proc.deps);
    const grow = () => {
      proc.state.size += 50 * MB;
      proc.tick();
    };
    grow();
    assert.equal(keeper.collections, 1);
    const checks = MIN_SPACING_MS / CHECK_INTERVAL_MS;
    for (let i = 1; i < checks; i += 1) grow();
    assert.equal(keeper.collections, 1, 'none within the spacing');
    grow();
    assert.equal(keeper.collections, 2);
  });

  test("counts from V8's own collections too", () => {
    const proc = fakeProcess(40 * MB);
    const keeper = startMemoryKeeper(proc.deps);
    proc.state.size = 47 * MB;
    proc.tick();
    // V8 collected by itself between two checks.
    proc.state.size = 36 * MB;
    proc.tick();
    proc.state.size = 36 * MB + GROWTH_BYTES;
    proc.tick();
    assert.equal(keeper.collections, 0);
    proc.state.size = 36 * MB + GROWTH_BYTES + 1;
    proc.tick();
    assert.equal(keeper.collections, 1);
  });

  test('does nothing without --expose-gc, and stop() clears its timer', () => {
    const without = fakeProcess(40 * MB, false);
    const idle = startMemoryKeeper(without.deps);
    assert.equal(without.state.interval, 0, 'no timer is set');
    idle.stop();
    const proc = fakeProcess(40 * MB);
    startMemoryKeeper(proc.deps).stop();
    assert.ok(proc.state.cleared);
  });

  test('in this process (no --expose-gc under the test runner) it sets no timer and never collects', () => {
    assert.equal((globalThis as { gc?: unknown }).gc, undefined);
    const keeper = startMemoryKeeper();
    assert.equal(keeper.collections, 0);
    keeper.stop();
  });
});
