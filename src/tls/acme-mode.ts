// tls.mode = "acme": serve the stored certificate, order one before the listener opens when there is none, and
// renew it once fewer than tls.acme_renew_days are left (checked hourly). One node orders at a time (a PostgreSQL
// advisory lock), so several nodes never hammer the authority together. A failed renewal keeps the current
// certificate, records why (acme-state.json, shown by status and doctor) and is retried at the next check; with no
// certificate at all, a failed first order stops the start with the reason (docs/decisions.md "TLS").
import type { Sql } from '../db/pool.ts';
import type { AcmePaths } from './acme-files.ts';
import { readAcmeState, readStoredPair, storePair, writeAcmeState } from './acme-files.ts';
import { type AcmeSettings, orderCertificate } from './acme-order.ts';
import { acmeStartFailure, errorText } from './acme-start-failure.ts';
import { type CertificatePair, parseCertificatePair } from './certificate-pair.ts';

const DAY_MS = 86_400_000;
const CHECK_MS = 3_600_000;
/** Advisory lock key of "an ACME order is running" (any constant distinct from the other locks' keys). */
export const ACME_ORDER_LOCK = 7_245_310_023;

export interface AcmeModeDeps {
  sql: Sql;
  clock: () => Date;
  settings: AcmeSettings;
  paths: AcmePaths;
  renewBeforeDays: number;
  apply: (pair: CertificatePair) => void;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Tests pass 0 and call renewIfDue() themselves. */
  checkMs?: number;
}

export type RenewalOutcome = 'renewed' | 'not_due' | 'busy' | 'failed';

export interface AcmeMode {
  readonly initial: CertificatePair;
  /** Renews when the served certificate is due; never throws (a failure is logged and recorded). */
  renewIfDue(): Promise<RenewalOutcome>;
  stop(): void;
}

/** Runs `order` while holding the cluster-wide ACME lock; null when another node holds it and `wait` is false. */
async function underLock<T>(sql: Sql, wait: boolean, order: () => Promise<T>): Promise<T | null> {
  const connection = await sql.reserve();
  try {
    if (wait) await connection`select pg_advisory_lock(${ACME_ORDER_LOCK})`;
    else {
      const [row] = await connection<{ locked: boolean }[]>`select pg_try_advisory_lock(${ACME_ORDER_LOCK}) as locked`;
      if (!row?.locked) return null;
    }
    try {
      return await order();
    } finally {
      await connection`select pg_advisory_unlock(${ACME_ORDER_LOCK})`;
    }
  } finally {
    connection.release();
  }
}

export async function startAcmeMode(deps: AcmeModeDeps): Promise<AcmeMode> {
  const { paths } = deps;
  const files = { cert: paths.certificate, key: paths.certificateKey };

  const orderAndStore = async (): Promise<CertificatePair> => {
    const attemptAt = deps.clock().toISOString();
    const previous = readAcmeState(paths);
    try {
      const ordered = await orderCertificate({
        sql: deps.sql,
        clock: deps.clock,
        settings: deps.settings,
        paths,
      });
      const pair = parseCertificatePair(ordered.cert, ordered.key, files);
      storePair(paths, pair);
      writeAcmeState(paths, { last_attempt_at: attemptAt, last_success_at: attemptAt, last_error: null });
      deps.log.info(
        { domain: deps.settings.domain, issuer: pair.leaf.issuer, not_after: pair.leaf.validToDate.toISOString() },
        'ACME certificate obtained',
      );
      return pair;
    } catch (error) {
      const reason = errorText(error);
      writeAcmeState(paths, { ...previous, last_attempt_at: attemptAt, last_error: reason });
      throw error;
    }
  };

  let serving = readStoredPair(paths);
  if (serving === null) {
    let first: CertificatePair | null;
    try {
      first = await underLock(deps.sql, true, orderAndStore);
    } catch (error) {
      const failure = acmeStartFailure(error, deps.settings.domain, deps.settings.directoryUrl);
      deps.log.error(
        { domain: deps.settings.domain, error: errorText(error), exit_status: failure.exitCode },
        'ACME: no certificate and the first order failed: the service cannot start',
      );
      throw failure;
    }
    if (first === null) throw new Error('unreachable: a waiting lock always returns');
    serving = first;
  }
  const initial = serving;

  const renewIfDue = async (): Promise<RenewalOutcome> => {
    const left = (serving as CertificatePair).leaf.validToDate.getTime() - deps.clock().getTime();
    if (left > deps.renewBeforeDays * DAY_MS) return 'not_due';
    try {
      const renewed = await underLock(deps.sql, false, orderAndStore);
      if (renewed === null) return 'busy';
      deps.apply(renewed);
      serving = renewed;
      return 'renewed';
    } catch (error) {
      deps.log.error(
        { domain: deps.settings.domain, error: errorText(error), days_left: Math.floor(left / DAY_MS) },
        'ACME renewal failed: still serving the current certificate, retrying at the next check',
      );
      return 'failed';
    }
  };

  const checkMs = deps.checkMs ?? CHECK_MS;
  const timer = checkMs > 0 ? setInterval(() => void renewIfDue(), checkMs) : null;
  timer?.unref();
  return {
    initial,
    renewIfDue,
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
