// HTTPS webhook delivery, signed per Standard Webhooks (https://www.standardwebhooks.com/, "Signature scheme"):
// webhook-id (the outbox id: stable across retries, so the receiver can drop duplicates), webhook-timestamp
// (Unix seconds; receivers refuse old ones to stop replays) and webhook-signature = "v1," + base64 of
// HMAC-SHA256(secret, id + "." + timestamp + "." + body), the secret being webhookSecret(secrets.delivery).
// The receiver's certificate is always verified, against delivery.webhook.ca_file when set.
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import type { Config } from '../config/schema.ts';
import { hmac } from '../crypto/primitives.ts';
import { nodeHttp } from '../http/node-http.ts';
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

/**
 * 2xx delivered; 408, 429, 5xx (and network errors) are worth retrying. Anything else is permanent: a 4xx will not
 * change by retrying, and a 3xx is not followed (a signed message goes only where it was configured to go) and
 * would redirect again, so retrying it would only repeat the refusal until the last attempt.
 */
function failureFor(status: number): DeliveryFailure | null {
  if (status >= 200 && status < 300) return null;
  const retryable = status === 408 || status === 429 || status >= 500;
  return new DeliveryFailure(`webhook answered HTTP ${status}`, !retryable);
}

export interface WebhookOptions {
  deliveryKey: Buffer;
  clock?: () => Date;
}

interface Exchange {
  method: 'POST' | 'HEAD';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

/**
 * One HTTP exchange with node:http(s) rather than fetch, which cannot take a private CA: answers the status and
 * discards the answer's body. Redirects are never followed. Aborting the signal destroys the request and its
 * socket, so a send that was cut off really stops.
 */
function exchange(webhook: WebhookConfig, ca: Buffer | undefined, options: Exchange): Promise<number> {
  const url = new URL(webhook.url);
  // node:http as src/http/node-http.ts gives it, not an ES import (which loads Node's bundled undici).
  const send = url.protocol === 'https:' ? httpsRequest : nodeHttp.request;
  const body = options.body ?? '';
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: options.method,
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: options.signal,
        ...(url.protocol === 'https:' ? { minVersion: 'TLSv1.2' as const, ...(ca ? { ca } : {}) } : {}),
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const readCa = (webhook: WebhookConfig) => (webhook.ca_file ? readFileSync(webhook.ca_file) : undefined);

export function createWebhookTransport(webhook: WebhookConfig, options: WebhookOptions): Transport {
  const secret = webhookSecret(options.deliveryKey);
  const clock = options.clock ?? (() => new Date());
  const ca = readCa(webhook);
  return {
    kind: 'webhook',
    async send(message, signal) {
      const now = clock();
      const timestamp = Math.floor(now.getTime() / 1000);
      const body = webhookPayload(message, now);
      const timeout = AbortSignal.timeout(webhook.timeout_seconds * 1000);
      let status: number;
      try {
        status = await exchange(webhook, ca, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Gatehouse',
            'webhook-id': message.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signWebhook(secret, message.id, timestamp, body),
          },
          body,
          signal: AbortSignal.any([signal, timeout]),
        });
      } catch (error) {
        const reason = timeout.aborted
          ? `no answer within ${webhook.timeout_seconds} s`
          : signal.aborted
            ? 'the send was cut off'
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
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return e.code ?? e.cause?.code ?? e.cause?.message ?? e.message ?? String(error);
}

/** doctor and `config delivery`: does anything answer HTTP at the URL? Sends nothing signed. */
export async function checkWebhookReachable(
  webhook: WebhookConfig,
): Promise<{ ok: true; status: number } | { ok: false; error: string }> {
  try {
    const status = await exchange(webhook, readCa(webhook), {
      method: 'HEAD',
      headers: { 'user-agent': 'Gatehouse' },
      signal: AbortSignal.timeout(webhook.timeout_seconds * 1000),
    });
    return { ok: true, status };
  } catch (error) {
    return { ok: false, error: networkReason(error) };
  }
}
