// Periodic upkeep on every node, independently of the delivery worker (whose own housekeeping covers the outbox):
// purges of state that has stopped mattering (ended sessions, expired login transactions, stale throttle rows, ended
// request-counter windows, expired redirect-provider round trips and passkey challenges, verifications spent 30 days
// ago, ended authorization codes, refresh tokens and revoked access token ids), each one idempotent DELETE, so nodes
// racing each other is harmless; then the chaining of
// audit records a node committed but did not chain, which takes each record once whichever node runs it.
import type { Logger } from 'pino';
import type { Audit } from './audit/audit.ts';
import type { Sql } from './db/pool.ts';
import { LONGEST_WINDOW_SECONDS } from './http/rate-limit.ts';
import { deleteEndedRequestWindows } from './http/store.ts';
import { purgeExpiredFederatedTransactions } from './login/federated/store.ts';
import { purgeLoginRecords } from './login/local/retention.ts';
import { deleteExpiredChallenges } from './login/passkey/store.ts';
import { purgeExpiredSamlState } from './login/saml/store.ts';
import { purgeExpiredFarcasterChannels } from './login/web3/farcaster-store.ts';
import { purgeExpiredWeb3Messages } from './login/web3/store.ts';
import { purgePushedRequests } from './oauth/pushed-request-store.ts';
import { purgeOAuthRecords } from './oauth/retention.ts';
import { purgeUsedJtis } from './oauth/used-jti-store.ts';
import { purgeEndedSessions } from './session/retention.ts';
import { purgeSpentVerifications } from './verification/verification.ts';

export const HOUSEKEEPING_INTERVAL_SECONDS = 3600;
/**
 * The replay store is purged every minute besides: every DPoP request adds a row that matters for about 70 s (a client
 * assertion's, up to about 5 minutes), and an hour of them under load (millions of random keys) is an index far larger
 * than the database's cache, which each insert then reads from disk. Purged each minute, it holds a few minutes of
 * traffic.
 */
export const REPLAY_STORE_PURGE_SECONDS = 60;

export interface HousekeepingReport {
  sessions: number;
  loginTransactions: number;
  throttleRows: number;
  requestWindows: number;
  verifications: number;
  federatedTransactions: number;
  passkeyChallenges: number;
  web3Messages: number;
  farcasterChannels: number;
  samlState: number;
  usedJtis: number;
  pushedRequests: number;
  authorizationCodes: number;
  refreshTokens: number;
  revokedAccessTokens: number;
  deviceCodes: number;
}

export async function runHousekeeping(sql: Sql, now: Date): Promise<HousekeepingReport> {
  const login = await purgeLoginRecords(sql, now);
  return {
    sessions: await purgeEndedSessions(sql, now),
    ...login,
    requestWindows: await deleteEndedRequestWindows(sql, new Date(now.getTime() - LONGEST_WINDOW_SECONDS * 1000)),
    verifications: await purgeSpentVerifications(sql, now),
    // A redirect-provider round trip is useless once expired; nothing about it needs keeping.
    federatedTransactions: await purgeExpiredFederatedTransactions(sql, now),
    passkeyChallenges: await deleteExpiredChallenges(sql, now),
    // An expired Sign-In with Ethereum message can no longer complete; its nonce is not reused (128 random bits).
    web3Messages: await purgeExpiredWeb3Messages(sql, now),
    // Likewise an expired Farcaster channel: the relay forgets it too.
    farcasterChannels: await purgeExpiredFarcasterChannels(sql, now),
    // A request past its expiry cannot be answered, and an assertion past its NotOnOrAfter is refused anyway.
    samlState: await purgeExpiredSamlState(sql, now),
    usedJtis: await purgeUsedJtis(sql, now),
    pushedRequests: await purgePushedRequests(sql, now),
    ...(await purgeOAuthRecords(sql, now)),
  };
}

export interface HousekeepingDeps {
  sql: Sql;
  clock: () => Date;
  log: Pick<Logger, 'info' | 'warn'>;
  audit: Pick<Audit, 'chainPending'>;
  intervalSeconds?: number;
}

/** The minute's purge: expected to delete rows every time under load, so it reports failures only. */
async function purgeReplayStore(deps: HousekeepingDeps): Promise<void> {
  try {
    await purgeUsedJtis(deps.sql, deps.clock());
  } catch (error) {
    deps.log.warn({ error: (error as Error).message }, 'purging the replay store failed');
  }
}

/**
 * Runs housekeeping every interval and the replay store's purge every minute (neither at once: startup has enough to
 * do). Errors are logged, never fatal.
 */
export function startHousekeeping(deps: HousekeepingDeps): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const round = async () => {
    try {
      const report = await runHousekeeping(deps.sql, deps.clock());
      if (Object.values(report).some((n) => n > 0)) deps.log.info(report, 'housekeeping purged ended records');
    } catch (error) {
      deps.log.warn({ error: (error as Error).message }, 'housekeeping failed');
    }
    try {
      // Normally none: a change's record is chained right after its commit, unless that failed.
      const chained = await deps.audit.chainPending();
      if (chained > 0) deps.log.info({ chained }, 'audit records of earlier changes chained');
    } catch (error) {
      deps.log.warn({ error: (error as Error).message }, 'chaining pending audit records failed');
    }
  };
  const timer = setInterval(
    () => {
      running = running.then(round);
    },
    (deps.intervalSeconds ?? HOUSEKEEPING_INTERVAL_SECONDS) * 1000,
  );
  timer.unref();
  // At most one purge waits or runs: behind a slow hourly round (or a database that does not answer) the minutes
  // would otherwise queue one purge each.
  let replayPurgePending = false;
  const replayTimer = setInterval(() => {
    if (replayPurgePending) return;
    replayPurgePending = true;
    running = running
      .then(() => purgeReplayStore(deps))
      .finally(() => {
        replayPurgePending = false;
      });
  }, REPLAY_STORE_PURGE_SECONDS * 1000);
  replayTimer.unref();
  return {
    async stop() {
      clearInterval(timer);
      clearInterval(replayTimer);
      await running;
    },
  };
}
