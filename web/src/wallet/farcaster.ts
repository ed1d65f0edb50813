// Sign In With Farcaster in the browser: the server opens a relay channel and answers its deep link (and a QR code
// of it); the person approves in the Farcaster app; the page polls the server, which answers 202 `pending` until the
// relay reports the signed message and then signs in (or links). Nothing is signed or verified in the page.
import { api } from '../api.ts';

export interface FarcasterChannel {
  channel: string;
  /** The deep link the Farcaster app opens (mobile) or the QR code encodes (desktop). */
  url: string;
  qr_svg: string;
  expires_in: number;
}

/** Between polls: the app's approval takes a person seconds, so once a second and a half is prompt enough. */
export const POLL_MS = 1500;

export const openChannel = (base: string) => api<FarcasterChannel>('POST', `${base}/start`, {});

/** True once the server signed in or linked; false while the person has not approved yet. Refusals throw. */
export async function channelDone(base: string, channel: string): Promise<boolean> {
  const answer = await api<{ state?: string }>('POST', `${base}/complete`, { channel });
  return answer?.state !== 'pending';
}
