// Server-provided DPoP nonces (RFC 9449 §8, §9). Stateless, so every node serves and accepts the same ones without
// sharing anything but the signing secret: a nonce is a time window and its HMAC. A nonce stays good for the window
// it was served in and the next, so one served just before a window ends still works for one more.
import { constantTimeEqual, hmac } from '../crypto/primitives.ts';

const WINDOW_SECONDS = 60;
const PURPOSE = 'dpop-nonce:';

export interface DpopNonces {
  /** The nonce to serve now. */
  current(): string;
  accepts(nonce: string | undefined): boolean;
}

export function createDpopNonces(key: Buffer, clock: () => Date): DpopNonces {
  const windowAt = (date: Date) => Math.floor(date.getTime() / 1000 / WINDOW_SECONDS);
  // Every request with a proof asks for up to three nonces, all of the same two windows: each is computed once.
  const computed = new Map<number, string>();
  const nonceFor = (window: number) => {
    const known = computed.get(window);
    if (known !== undefined) return known;
    const label = window.toString(36);
    const nonce = `${label}.${hmac(key, PURPOSE, label).subarray(0, 16).toString('base64url')}`;
    if (computed.size >= 4) computed.clear();
    computed.set(window, nonce);
    return nonce;
  };
  return {
    current: () => nonceFor(windowAt(clock())),
    accepts(nonce) {
      if (nonce === undefined || nonce.length > 64) return false;
      const window = windowAt(clock());
      return constantTimeEqual(nonce, nonceFor(window)) || constantTimeEqual(nonce, nonceFor(window - 1));
    },
  };
}
