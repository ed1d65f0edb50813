// OpenID Connect Back-Channel Logout 1.0 through the outbox: a message kind that POSTs a logout token to a client's
// backchannel_logout_uri instead of mailing anyone, with the outbox's retries and back-off, so a slow or failing
// client never holds up the sign-out that caused it. The row keeps only who is logged out of which client (the
// body: identifiers, nothing secret); the token is signed at each attempt by the OAuth module, so a retry an hour
// later still sends a fresh, unexpired token.
import { randomBytes } from 'node:crypto';
import type { Executor } from '../db/pool.ts';
import { insertMessage } from './store.ts';
import { DeliveryFailure } from './transport.ts';

export const BACKCHANNEL_LOGOUT = 'backchannel_logout';

/** What a logout token says (§2.4): the client it is for, the person and the session that ended. */
export interface LogoutSubject {
  clientId: string;
  sub: string;
  sid: string;
}

export interface LogoutTokenSigner {
  signLogoutToken(subject: LogoutSubject): Promise<string>;
}

/** Queues one logout token delivery on the caller's transaction: it goes only if the sign-out commits. */
export async function enqueueBackchannelLogout(
  sql: Executor,
  notice: LogoutSubject & { uri: string },
  now: Date,
): Promise<void> {
  const body: LogoutSubject = { clientId: notice.clientId, sub: notice.sub, sid: notice.sid };
  await insertMessage(
    sql,
    {
      id: `msg_${randomBytes(16).toString('base64url')}`,
      template: BACKCHANNEL_LOGOUT,
      recipient: notice.uri,
      sealedBody: JSON.stringify(body),
    },
    now,
  );
}

/**
 * §2.5: POST logout_token as a form; 200 or 204 is success. 408, 429 and 5xx (and network errors) are retried;
 * another 4xx or a redirect (not followed: the token goes only to the registered URI) is final.
 */
export async function postLogoutToken(uri: string, logoutToken: string, signal: AbortSignal): Promise<void> {
  const response = await fetch(uri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-store' },
    body: new URLSearchParams({ logout_token: logoutToken }).toString(),
    redirect: 'manual',
    signal,
  });
  await response.body?.cancel();
  if (response.status >= 200 && response.status < 300) return;
  const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
  throw new DeliveryFailure(`back-channel logout answered HTTP ${response.status}`, !retryable);
}
