// How long the supervisor waits before restarting a worker that exited unasked. Doubling from a quarter second
// gives a crash from a passing fault (a dropped database, memory pressure) a quick second chance, while a worker
// that crashes on every start settles at one attempt every half minute instead of a fork storm that starves the
// workers still serving.
const FIRST_DELAY_MS = 250;
const LONGEST_DELAY_MS = 30_000;

/** `attempt` counts consecutive quick exits of the same worker slot, from 1. */
export function restartDelayMs(attempt: number): number {
  return Math.min(LONGEST_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.max(0, attempt - 1));
}
