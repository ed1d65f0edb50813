// Delivery's part of `gatehouse doctor` and the check `gatehouse config delivery` runs after writing: is
// delivery configured, and does the configured path work (relay login, webhook answers, DNS published)?
import { readFileSync } from 'node:fs';
import type { Config } from '../config/schema.ts';
import type { Executor } from '../db/pool.ts';
import { type Check, check } from './check.ts';
import { dkimPublicKey } from './dkim-key.ts';
import { type DnsResolver, directMxDnsReport } from './dns-report.ts';
import { verifySmtpRelay } from './smtp-relay.ts';
import { deliveryStatus } from './status.ts';
import { countMessages } from './store.ts';
import { checkWebhookReachable } from './webhook.ts';

export interface DeliveryCheckDeps {
  resolver: DnsResolver;
}

function readDkimKey(file: string): { pem: string } | { error: string } {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    return { error: `cannot read ${file} (${(error as { code?: string }).code ?? 'error'})` };
  }
  // Parsing errors carry codes too (ERR_OSSL_…): they say the file is not a key, not that it cannot be read.
  try {
    dkimPublicKey(pem);
    return { pem };
  } catch {
    return { error: `${file} is not an RSA private key in PEM` };
  }
}

/** Receivers often put a token in the URL's query or credentials; doctor output is pasted into tickets. */
function originAndPath(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

/** Checks that say whether the configured delivery can send; includes the DNS report for direct MX. */
export async function deliveryChecks(config: Config, deps: DeliveryCheckDeps): Promise<Check[]> {
  const status = deliveryStatus(config);
  if (status.state === 'not_configured')
    return [
      check(
        config.self_service.enabled ? 'fail' : 'info',
        'delivery',
        `not configured (${status.reason}): sign-up and recovery are refused; set it with \`gatehouse config delivery\``,
      ),
    ];
  if (status.state === 'deferred')
    return [check(config.self_service.enabled ? 'fail' : 'warn', 'delivery', `deferred: ${status.reason}`)];

  // Honest about what it is: nothing is sent, so there is nothing to connect to and nothing to call ok.
  if (config.delivery.kind === 'dev_mailbox') return [check('info', 'delivery', status.reason)];
  const checks = [check('ok', 'delivery', status.reason)];
  const { delivery } = config;
  switch (delivery.kind) {
    case 'smtp': {
      const result = await verifySmtpRelay(delivery.smtp);
      checks.push(
        result.ok
          ? check('ok', 'smtp', `${delivery.smtp.host}:${delivery.smtp.port} accepted TLS and the login`)
          : check('fail', 'smtp', `${delivery.smtp.host}:${delivery.smtp.port}: ${result.error}`),
      );
      break;
    }
    case 'webhook': {
      const result = await checkWebhookReachable(delivery.webhook);
      const shown = originAndPath(delivery.webhook.url);
      checks.push(
        result.ok
          ? check('ok', 'webhook', `${shown} answers (HTTP ${result.status} to HEAD)`)
          : check('fail', 'webhook', `${shown} is unreachable: ${result.error}`),
      );
      break;
    }
    case 'direct_mx': {
      const key = readDkimKey(delivery.direct_mx.dkim_private_key_file);
      if ('error' in key) checks.push(check('fail', 'dkim key', key.error));
      else checks.push(...(await directMxDnsReport(config, deps.resolver, key.pem)));
      break;
    }
  }
  return checks;
}

/** Messages waiting and given up; dead messages are worth a look (last_error says why). */
export async function outboxCheck(sql: Executor): Promise<Check> {
  const counts = await countMessages(sql);
  const detail = `${counts.pending} pending, ${counts.sent} sent, ${counts.dead} dead`;
  return check(counts.dead > 0 ? 'warn' : 'ok', 'outbox', detail);
}
