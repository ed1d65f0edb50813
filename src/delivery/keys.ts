// Keys derived from the verification-delivery secret file (secrets.delivery). HKDF (RFC 5869) with distinct
// info strings gives independent keys, so the key that seals outbox bodies is never the one a webhook
// receiver holds.
import { hkdfSync } from 'node:crypto';

const derive = (deliveryKey: Buffer, info: string) =>
  Buffer.from(hkdfSync('sha256', deliveryKey, Buffer.alloc(0), info, 32));

/** AES-256-GCM key for message bodies waiting in the outbox. */
export function outboxSealKey(deliveryKey: Buffer): Buffer {
  return derive(deliveryKey, 'gatehouse outbox body v1');
}

/**
 * The Standard Webhooks signing secret: `whsec_` + base64 of 32 bytes. The receiver gets it from
 * `gatehouse config delivery --show-webhook-secret`; it changes only if the delivery key file changes.
 */
export function webhookSecret(deliveryKey: Buffer): string {
  return `whsec_${derive(deliveryKey, 'gatehouse webhook signing v1').toString('base64')}`;
}
