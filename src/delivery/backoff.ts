// Retry timing: exponential back-off with jitter, so a relay outage does not see every node retry in step.
// Retries after 30 s, 1, 2, 4, 8, 16 and 32 min (each plus up to 20%): the eighth and last attempt comes about
// an hour after the first. Longer is pointless for verification mail: most secrets have expired by then.
export const MAX_ATTEMPTS = 8;
const BASE_SECONDS = 30;
const CAP_SECONDS = 3600;

/** Seconds to wait after failed attempt number `attempt` (1-based); `random` is in [0, 1). */
export function retryDelaySeconds(attempt: number, random: () => number = Math.random): number {
  const exponential = Math.min(CAP_SECONDS, BASE_SECONDS * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (1 + 0.2 * random()));
}
