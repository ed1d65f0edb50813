// The account's passkeys: list, rename, remove. Removal goes through the identity module's rule (never the last
// sign-in method) after recent authentication; a name is only a label, so renaming needs the session alone.
import { NotFound } from '../../http/errors.ts';
import { removeSignInMethod } from '../../identity/sign-in-methods.ts';
import { relabelSignInMethod } from '../../identity/store.ts';
import type { Session } from '../../session/types.ts';
import type { AttemptContext } from '../local/deps.ts';
import type { PasskeyDeps } from './deps.ts';
import { requireRecentAuthentication } from './recent-authentication.ts';
import { type ListedPasskey, listPasskeys } from './store.ts';

export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  /** Synced (backup eligible) or bound to one device; shown so people know which one they are removing. */
  synced: boolean;
  backed_up: boolean;
  transports: string[];
  aaguid: string;
}

const view = (p: ListedPasskey): PasskeyView => ({
  id: p.methodId,
  name: p.name,
  created_at: p.createdAt.toISOString(),
  last_used_at: p.lastUsedAt?.toISOString() ?? null,
  synced: p.backupEligible,
  backed_up: p.backupState,
  transports: p.transports,
  aaguid: p.aaguid,
});

export async function listMyPasskeys(deps: PasskeyDeps, session: Session): Promise<PasskeyView[]> {
  return (await listPasskeys(deps.sql, session.identityId)).map(view);
}

async function ownPasskey(deps: PasskeyDeps, session: Session, id: string): Promise<void> {
  const owned = await listPasskeys(deps.sql, session.identityId);
  if (!owned.some((p) => p.methodId === id)) throw new NotFound('No such passkey');
}

export async function renamePasskey(
  deps: PasskeyDeps,
  context: AttemptContext,
  session: Session,
  id: string,
  name: string,
): Promise<PasskeyView> {
  await ownPasskey(deps, session, id);
  await relabelSignInMethod(deps.sql, session.identityId, id, name.trim());
  await deps.audit.record({
    event: 'passkey.renamed',
    ...context,
    actor: session.identityId,
    subject: session.identityId,
    details: { method_id: id },
  });
  const renamed = (await listPasskeys(deps.sql, session.identityId)).find((p) => p.methodId === id);
  if (!renamed) throw new NotFound('No such passkey');
  return view(renamed);
}

export async function removePasskey(
  deps: PasskeyDeps,
  context: AttemptContext,
  session: Session,
  id: string,
  password: string | undefined,
): Promise<void> {
  await ownPasskey(deps, session, id);
  await requireRecentAuthentication(deps, context, session, password);
  await removeSignInMethod(
    deps.sql,
    deps.audit,
    { actor: session.identityId, clientIp: context.clientIp, requestId: context.requestId },
    session.identityId,
    id,
  );
}
