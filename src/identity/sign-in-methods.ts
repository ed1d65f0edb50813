// The sign-in method rules SPEC.md states, enforced here once for every method kind: a method that belongs to
// another identity is never attached (409 method_conflict, no merge, no linking by email), and an identity's last
// method is never removed (409 last_sign_in_method). Both decisions are atomic in PostgreSQL (see store.ts).
import type { Audit, AuditEvent } from '../audit/audit.ts';
import type { Executor, Sql } from '../db/pool.ts';
import { GatehouseError, NotFound } from '../http/errors.ts';
import type { Sub } from './ids.ts';
import { deleteSignInMethodUnlessLast, insertSignInMethod, type NewSignInMethod, type SignInMethod } from './store.ts';

/** Who asked, for the audit record. */
export interface RequestContext {
  actor: string | null;
  clientIp: string | null;
  requestId: string | null;
}

export async function attachSignInMethod(
  sql: Executor,
  audit: Audit,
  context: RequestContext,
  input: NewSignInMethod,
): Promise<SignInMethod> {
  const { method, attached } = await attachSignInMethodIn(sql, audit, context, input);
  if (attached) await audit.record(attached);
  return method;
}

/**
 * The same rule on the caller's transaction. The `method.attached` record is returned, not written: the caller
 * records it once the transaction commits, so a rolled-back attach leaves no audit record claiming it happened.
 * A refusal is recorded at once: nothing was attached, whatever the transaction does next.
 */
export async function attachSignInMethodIn(
  tx: Executor,
  audit: Audit,
  context: RequestContext,
  input: NewSignInMethod,
): Promise<{ method: SignInMethod; attached: AuditEvent | null }> {
  const { inserted, method } = await insertSignInMethod(tx, input);
  if (!inserted && method.identityId !== input.identityId) {
    await audit.record({
      event: 'method.attach_refused',
      ...context,
      subject: input.identityId,
      details: { kind: input.kind, provider: input.provider },
    });
    throw new GatehouseError('method_conflict');
  }
  const attached: AuditEvent | null = inserted
    ? {
        event: 'method.attached',
        ...context,
        subject: input.identityId,
        details: { kind: input.kind, provider: input.provider, method_id: method.id },
      }
    : null;
  return { method, attached };
}

export async function removeSignInMethod(
  sql: Sql,
  audit: Audit,
  context: RequestContext,
  identityId: Sub,
  methodId: string,
): Promise<void> {
  const outcome = await deleteSignInMethodUnlessLast(sql, identityId, methodId);
  if (outcome === 'not_found') throw new NotFound('No such sign-in method');
  if (outcome === 'last') throw new GatehouseError('last_sign_in_method');
  await audit.record({ event: 'method.removed', ...context, subject: identityId, details: { method_id: methodId } });
}
