// HTTPS webhook delivery, signed per Standard Webhooks (https://www.standardwebhooks.com/, "Signature scheme"):
// webhook-id (the outbox id: stable across retries, so the receiver can drop duplicates), webhook-timestamp
// (Unix seconds; receivers refuse old ones to stop replays) and webhook-signature = "v1," + base64 of
// HMAC-SHA256(secret, id + "." + timestamp + "." + body), the secret being webhookSecret(secrets.delivery).
import type { Config } from '../config/schema.ts';
import { hmac } from '../crypto/primitives.ts';
import { webhookSecret } from './keys.ts';
import { DeliveryFailure, type OutgoingMessage, type Transport } from './transport.ts';

type WebhookConfig = Config['delivery']['webhook'];

export const WEBHOOK_EVENT_TYPE = 'verification.message';

export function webhookPayload(message: OutgoingMessage, now: Date): string {
  return JSON.stringify({
    type: WEBHOOK_EVENT_TYPE,
    timestamp: now.toISOString(),
    data: {
      message_id: message.id,
      template: message.template,
      from: message.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
    },
  });
}

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${hmac(key, `${id}.${timestamp}.${body}`).toString('base64')}`;
}

/** 2xx delivered; 408, 429 and 5xx are worth retrying; any other answer will not change by retrying. */
function failureFor(status: number): DeliveryFailure | null {
  if (status >= 200 && status < 300) return null;
  const retryable = status === 408 || status === 429 || status >= 500 || status < 400;
  return new DeliveryFailure(`webhook answered HTTP ${status}`, !retryable);
}

export interface WebhookOptions {
  deliveryKey: Buffer;
  clock?: () => Date;
}

export function createWebhookTransport(webhook: WebhookConfig, options: WebhookOptions): Transport {
  const secret = webhookSecret(options.deliveryKey);
  const clock = options.clock ?? (() => new Date());
  return {
    kind: 'webhook',
    async send(message) {
      const now = clock();
      const timestamp = Math.floor(now.getTime() / 1000);
      const body = webhookPayload(message, now);
      let status: number;
      try {
        const response = await fetch(webhook.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Gatehouse',
            'webhook-id': message.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(secret, message.id, timestamp, body),
          },
          body,
          // A signed message goes only where it was configured to go.
          redirect: 'manual',
          signal: AbortSignal.timeout(webhook.timeout_seconds * 1000),
        });
        status = response.status;
        await response.body?.cancel();
      } catch (error) {
        const reason =
          (error as Error).name === 'TimeoutError'
            ? `no answer within ${webhook.timeout_seconds} s`
            : networkReason(error);
        throw new DeliveryFailure(`webhook unreachable: ${reason}`, false, { cause: error });
      }
      const failure = failureFor(status);
      if (failure) throw failure;
    },
    close() {},
  };
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** doctor and `config delivery`: does anything answer HTTP at the URL? Sends nothing signed. */
export async function checkWebhookReachable(
  webhook: WebhookConfig,
): Promise<{ ok: true; status: number } | { ok: false; error: string }> {
  try {
    const response = await fetch(webhook.url, {
      method: 'HEAD',
      redirect: 'manual',
      signal: AbortSignal.timeout(webhook.timeout_seconds * 1000),
    });
    await response.body?.cancel();
    return { ok: true, status: response.status };
  } catch (error) {
    return { ok: false, error: networkReason(error) };
  }
}
