// OpenID Connect Back-Channel Logout 1.0: when a person's session ends (sign-out, sign out everywhere, password
// reset, suspension), every client that holds a grant from it and registered a backchannel_logout_uri is sent a
// logout token. Queued in the outbox on the transaction that ends the session (delivery/backchannel.ts), so the
// sign-out never waits for a client and a client that is down gets the token on a retry.

import type { Executor } from '../db/pool.ts';
import { enqueueBackchannelLogout, type LogoutSubject, type LogoutTokenSigner } from '../delivery/backchannel.ts';
import { findSessionLogoutNotices, type LogoutNotice } from './grant-store.ts';
import type { TokenSigner } from './tokens.ts';

export async function queueLogoutTokens(sql: Executor, notices: readonly LogoutNotice[], now: Date): Promise<void> {
  for (const n of notices)
    await enqueueBackchannelLogout(
      sql,
      { clientId: n.clientId, sub: n.identityId, sid: n.sessionId, uri: n.backchannelLogoutUri },
      now,
    );
}

/** A sign-out: the session's grants stay as they are, but their clients hear that the session ended. */
export async function queueSessionLogoutTokens(
  sql: Executor,
  identityId: string,
  sessionId: string,
  now: Date,
): Promise<void> {
  await queueLogoutTokens(sql, await findSessionLogoutNotices(sql, identityId, sessionId), now);
}

/** The delivery worker's signer: a fresh token at each attempt. */
export const logoutTokenSigner = (signer: TokenSigner): LogoutTokenSigner => ({
  signLogoutToken: (subject: LogoutSubject) => signer.signLogoutToken(subject),
});
