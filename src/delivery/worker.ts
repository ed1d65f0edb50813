// The delivery worker: claims due outbox messages, sends them, and records the outcome. Several workers on
// several nodes share one outbox safely: a claim is exclusive (SKIP LOCKED) and is a lease. A live worker
// finishes every send well inside its lease (sends are cut off at sendTimeoutSeconds < leaseSeconds: the
// transport gets an AbortSignal and closes its connection), so no other worker can claim a message while it is
// being sent. A cut-off send keeps its claim until the lease ends, in case the next hop was still finishing;
// a worker that dies mid-send leaves a claim that expires, and the message is tried again. Across a crash delivery is therefore at-least-once: a process
// killed after the relay accepted a message but before recording it will send it again. Receivers can drop
// the duplicate by its Message-ID / webhook-id, which is the outbox id. Leases use each node's clock: nodes
// must agree within the margin between lease and send timeout (3 minutes by default), which NTP gives.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { open } from '../crypto/seal.ts';
import type { Sql } from '../db/pool.ts';
import { BACKCHANNEL_LOGOUT, type LogoutSubject, type LogoutTokenSigner, postLogoutToken } from './backchannel.ts';
import { MAX_ATTEMPTS, retryDelaySeconds } from './backoff.ts';
import { outboxSealKey } from './keys.ts';
import { bodyPurpose } from './outbox.ts';
import { recipientDomain } from './recipient.ts';
import {
  type ClaimedMessage,
  claimDueMessages,
  holdMessageUntilLeaseEnds,
  markMessageDead,
  markMessageSent,
  OUTBOX_CHANNEL,
  scheduleMessageRetry,
} from './store.ts';
import type { RenderedMessage } from './templates.ts';
import { DeliveryFailure, firstLine, type Transport } from './transport.ts';

export interface WorkerOptions {
  sql: Sql;
  /** Null: no mail is sent (delivery not configured), only back-channel logouts. */
  transport: Transport | null;
  /** Signs the logout tokens of back-channel logout messages; without it they wait in the outbox. */
  backchannel?: LogoutTokenSigner;
  /** secrets.delivery: opens the sealed bodies. */
  deliveryKey: Buffer;
  /** delivery.from */
  from: string;
  clock: () => Date;
  log: Logger;
  workerId?: string;
  batchSize?: number;
  leaseSeconds?: number;
  sendTimeoutSeconds?: number;
  maxAttempts?: number;
  /** Jitter source for the back-off; tests pass () => 0. */
  random?: () => number;
  /** Run by the poll loop about once an hour (retention); errors are logged, never fatal. */
  housekeeping?: (now: Date) => Promise<unknown>;
}

export interface RunSummary {
  claimed: number;
  sent: number;
  retried: number;
  dead: number;
}

export interface DeliveryWorker {
  readonly id: string;
  /** One claim-and-send round; tests drive the worker with this instead of timers. */
  runOnce(): Promise<RunSummary>;
  /** Runs rounds until stopped, pausing pollSeconds whenever the outbox had nothing more to claim. */
  start(pollSeconds?: number): void;
  stop(): Promise<void>;
}

export function createDeliveryWorker(options: WorkerOptions): DeliveryWorker {
  const id = options.workerId ?? `worker-${randomBytes(6).toString('base64url')}`;
  const batchSize = options.batchSize ?? 10;
  const leaseSeconds = options.leaseSeconds ?? 300;
  const sendTimeoutSeconds = options.sendTimeoutSeconds ?? 120;
  const maxAttempts = options.maxAttempts ?? MAX_ATTEMPTS;
  if (sendTimeoutSeconds * 2 > leaseSeconds) throw new RangeError('the lease must be at least twice the send timeout');
  const key = outboxSealKey(options.deliveryKey);
  const { sql, log, clock } = options;

  /** Sends one message; resolves to the failure, or null when the next hop accepted it. */
  async function attempt(message: ClaimedMessage): Promise<DeliveryFailure | null> {
    const cutOff = new AbortController();
    const timer = setTimeout(
      () => cutOff.abort(new DeliveryFailure(`no answer within ${sendTimeoutSeconds} s`, false, { cutOff: true })),
      sendTimeoutSeconds * 1000,
    );
    try {
      if (message.template === BACKCHANNEL_LOGOUT) {
        if (!options.backchannel) throw new DeliveryFailure('no logout token signer', false);
        const subject = JSON.parse(message.sealed_body) as LogoutSubject;
        const token = await options.backchannel.signLogoutToken(subject);
        await untilAborted(postLogoutToken(message.recipient, token, cutOff.signal), cutOff.signal);
        return null;
      }
      if (!options.transport) throw new DeliveryFailure('no mail transport', false);
      const body = JSON.parse(
        open(key, message.sealed_body, bodyPurpose(message.id)).toString('utf8'),
      ) as RenderedMessage;
      const outgoing = {
        id: message.id,
        template: message.template,
        from: options.from,
        to: message.recipient,
        ...body,
      };
      await untilAborted(options.transport.send(outgoing, cutOff.signal), cutOff.signal);
      return null;
    } catch (error) {
      if (cutOff.signal.aborted) return cutOff.signal.reason as DeliveryFailure;
      return error instanceof DeliveryFailure ? error : new DeliveryFailure(describe(error), false, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  async function deliver(message: ClaimedMessage): Promise<'sent' | 'retried' | 'dead'> {
    const context = {
      messageId: message.id,
      template: message.template,
      attempt: message.attempts,
      to:
        message.template === BACKCHANNEL_LOGOUT ? new URL(message.recipient).host : recipientDomain(message.recipient),
    };
    const failure = await attempt(message);
    if (!failure) {
      // Outside the send's try: a database error here must not turn a delivered message into a retry.
      if (await markMessageSent(sql, message.id, id, clock())) log.info(context, 'outbox message sent');
      else log.warn(context, 'outbox message sent after its claim lapsed');
      return 'sent';
    }
    if (failure.permanent || message.attempts >= maxAttempts) {
      await markMessageDead(sql, message.id, id, failure.message, clock());
      log.error({ ...context, error: failure.message }, 'outbox message given up');
      return 'dead';
    }
    const delay = retryDelaySeconds(message.attempts, options.random);
    const retryAt = new Date(clock().getTime() + delay * 1000);
    if (failure.cutOff) await holdMessageUntilLeaseEnds(sql, message.id, id, retryAt, failure.message);
    else await scheduleMessageRetry(sql, message.id, id, retryAt, failure.message);
    log.warn(
      { ...context, error: failure.message, retryInSeconds: delay },
      'outbox message delivery failed; will retry',
    );
    return 'retried';
  }

  async function runOnce(): Promise<RunSummary> {
    const now = clock();
    const templates = options.transport ? null : [BACKCHANNEL_LOGOUT];
    const leaseUntil = new Date(now.getTime() + leaseSeconds * 1000);
    const claimed = await claimDueMessages(sql, id, batchSize, leaseUntil, now, templates);
    const outcomes = await Promise.all(claimed.map(deliver));
    const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
    return { claimed: claimed.length, sent: count('sent'), retried: count('retried'), dead: count('dead') };
  }

  let running: Promise<void> | null = null;
  let listening: Promise<{ unlisten(): Promise<void> } | null> | null = null;
  let stopping = false;
  // Set by a NOTIFY from a committed enqueue; checked before sleeping so a wake-up during a round is not lost.
  let nudged = false;
  let wake: (() => void) | null = null;
  const nudge = () => {
    nudged = true;
    wake?.();
  };

  let lastHousekeeping = Number.NEGATIVE_INFINITY;
  async function housekeepIfDue(): Promise<void> {
    const now = clock();
    if (!options.housekeeping || now.getTime() - lastHousekeeping < 3_600_000) return;
    lastHousekeeping = now.getTime();
    await options
      .housekeeping(now)
      .catch((error: unknown) => log.warn({ error: describe(error) }, 'outbox housekeeping failed'));
  }

  async function loop(pollSeconds: number): Promise<void> {
    while (!stopping) {
      nudged = false;
      await housekeepIfDue();
      let more = false;
      try {
        more = (await runOnce()).claimed === batchSize;
      } catch (error) {
        log.error({ error: describe(error) }, 'outbox round failed');
      }
      // Polling still matters without notifications: retries and lapsed leases become due by time alone.
      if (!more && !stopping && !nudged)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollSeconds * 1000);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      wake = null;
    }
  }

  return {
    id,
    runOnce,
    start(pollSeconds = 5) {
      listening ??= sql.listen(OUTBOX_CHANNEL, nudge).catch((error: unknown) => {
        log.warn({ error: describe(error) }, 'outbox notifications unavailable; polling only');
        return null;
      });
      running ??= loop(pollSeconds);
    },
    async stop() {
      stopping = true;
      wake?.();
      await running;
      await (await listening)?.unlisten();
      options.transport?.close();
    },
  };
}

function describe(error: unknown): string {
  return firstLine(error instanceof Error ? error.message : String(error));
}

/** Settles with `work`, or rejects with the signal's reason as soon as it aborts, whatever the transport does. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
