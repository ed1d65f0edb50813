// POST /account/signup. Enumeration-safe (DESIGN.md): a new address and a registered one get the same answer and
// the same work (the password is hashed either way). A registered address gets a "someone tried to sign up"
// notice instead of a second account; nothing is ever linked or merged by email. A sign-up that was never
// verified does not hold its address hostage: signing up again replaces it, and only the mailbox owner can verify.
import { newSub, normalizeEmail, type Sub } from '../identity/ids.ts';
import {
  deletePendingIdentity,
  findIdentity,
  findPrimaryEmail,
  findSignInMethodOwner,
  insertIdentity,
  insertSignInMethod,
} from '../identity/store.ts';
import { PASSWORD_PROVIDER, upsertPasswordCredential } from '../login/local/credential-store.ts';
import { sendVerification } from '../verification/send-verification.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';
import { admitMailRequest } from './mail-throttle.ts';
import { hashAllowedPassword } from './password.ts';

export interface SignupInput {
  email: string;
  password: string;
  displayName: string;
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

export async function signUp(deps: AccountDeps, facts: RequestFacts, input: SignupInput): Promise<{ identityId: Sub }> {
  await admitMailRequest(deps, facts, input.email);
  const subject = normalizeEmail(input.email);
  const phc = await hashAllowedPassword(deps, input.password, subject);
  const now = deps.clock();
  const outcome: { created: Sub } | { existing: Sub | null } = await deps.sql
    .begin(async (tx) => {
      const holder = await findSignInMethodOwner(tx, 'password', PASSWORD_PROVIDER, subject);
      if (holder && (await findIdentity(tx, holder))?.state !== 'pending_verification') return { existing: holder };
      if (holder) await deletePendingIdentity(tx, holder);
      const identityId = await insertIdentity(tx, {
        displayName: input.displayName,
        assurance: 'ial1',
        state: 'pending_verification',
        email: { address: input.email.trim(), verified: false },
      });
      const { method } = await insertSignInMethod(tx, {
        identityId,
        kind: 'password',
        provider: PASSWORD_PROVIDER,
        externalSubject: subject,
        label: 'Password',
      });
      await upsertPasswordCredential(tx, method.id, identityId, phc);
      await sendVerification(tx, deps.outbox, { purpose: 'signup', identityId, email: input.email.trim() }, now);
      return { created: identityId };
    })
    .catch(async (error: unknown) => {
      // Two sign-ups for one address raced; the loser is answered like any registered address.
      if (isUniqueViolation(error))
        return { existing: await findSignInMethodOwner(deps.sql, 'password', PASSWORD_PROVIDER, subject) };
      throw error;
    });

  if ('created' in outcome) {
    await deps.audit.record({ event: 'signup.created', actor: outcome.created, subject: outcome.created, ...facts });
    return { identityId: outcome.created };
  }
  // The notice goes to the address on record, not to whatever spelling the newcomer typed.
  const onRecord = outcome.existing ? await findPrimaryEmail(deps.sql, outcome.existing) : null;
  if (onRecord) await deps.outbox.enqueue(deps.sql, { template: 'signup_attempt_notice', to: onRecord.address });
  await deps.audit.record({ event: 'signup.existing_address', actor: null, subject: outcome.existing, ...facts });
  // An id that names no identity: the caller cannot tell this answer from a real one.
  return { identityId: newSub() };
}
