// What follows once a wallet or a Farcaster custody key has proved an account: the same for both methods. A link
// attaches it to the identity that started the link (and only from that identity's own session); a sign-in hands it
// to the identity rules in src/identity, which find or create the identity, and is audited. Either way the proof is
// one factor, possession of a key (RFC 8176 "pop"), so the session is aal1 and the admin guard still asks for aal2.
import type { Audit } from '../../audit/audit.ts';
import type { Sql } from '../../db/pool.ts';
import { GatehouseError } from '../../http/errors.ts';
import {
  type ExternalAccount,
  linkExternalAccount,
  signInWithExternalAccount,
} from '../../identity/external-accounts.ts';
import type { Sub } from '../../identity/ids.ts';
import type { SessionStart } from '../../session/http.ts';
import type { RequestFacts } from './deps.ts';
import type { Purpose } from './store.ts';

export type ProvenOutcome = { kind: 'signed_in'; start: SessionStart } | { kind: 'linked'; subject: string };

export interface ProvenAccount {
  /** `ethereum` or `farcaster`, as the audit record names the provider. */
  provider: string;
  account: ExternalAccount;
  /** What the browser started: a sign-in, or a link for `startedBy`. */
  purpose: Purpose;
  startedBy: Sub | null;
  /** The identity of the browser's live session now, if any. */
  signedIn: Sub | null;
}

export async function settleProvenAccount(
  deps: { sql: Sql; audit: Audit; selfService: boolean },
  facts: RequestFacts,
  proven: ProvenAccount,
  now: Date,
): Promise<ProvenOutcome> {
  const { account, startedBy } = proven;
  if (proven.purpose === 'link') {
    if (startedBy === null || proven.signedIn !== startedBy) throw new GatehouseError('wallet_message_invalid');
    await linkExternalAccount(deps.sql, deps.audit, { actor: startedBy, ...facts }, startedBy, account);
    return { kind: 'linked', subject: account.subject };
  }
  const result = await signInWithExternalAccount(
    deps.sql,
    deps.audit,
    { actor: null, ...facts },
    account,
    { signUp: deps.selfService },
    now,
  );
  // Neither method carries an email, so email_in_use cannot arise; both refusals read as "no account, none created".
  if (result.outcome === 'signup_closed' || result.outcome === 'email_in_use')
    throw new GatehouseError('federated_signup_closed');
  await deps.audit.record({
    event: 'signin.succeeded',
    ...facts,
    actor: result.identityId,
    subject: result.identityId,
    details: { method: 'web3', provider: proven.provider, aal: 'aal1', created: result.outcome === 'created' },
  });
  return {
    kind: 'signed_in',
    start: { identityId: result.identityId, aal: 'aal1', amr: ['pop'], authTime: now, pending: null },
  };
}
