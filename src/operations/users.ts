// `gatehouse users list|invite|suspend|sign-out`: the admin API's identity operations (src/admin/identities.ts,
// invitations.ts) for an operator at the host; a person is named by sub or by email address.
import type { Actor, AdminDeps } from '../admin/context.ts';
import { searchIdentities, signOutEverywhere, suspendIdentity } from '../admin/identities.ts';
import { type InvitationInput, inviteIdentity } from '../admin/invitations.ts';
import { Invitation } from '../admin/schemas.ts';
import { normalizeEmail, type Sub } from '../identity/ids.ts';
import { findEmailHolder } from '../identity/store.ts';
import { OperationRefused } from './errors.ts';
import { assertFits } from './validate-input.ts';

type Summary = Awaited<ReturnType<typeof searchIdentities>>['identities'][number];

/** Newest first, at most `limit` (pages of 100 through the console's own listing). */
export async function listUsers(deps: AdminDeps, options: { search?: string; limit: number }): Promise<Summary[]> {
  const found: Summary[] = [];
  let cursor: string | undefined;
  do {
    const page = await searchIdentities(deps, {
      q: options.search,
      limit: String(Math.min(100, options.limit - found.length)),
      ...(cursor ? { cursor } : {}),
    });
    found.push(...page.identities);
    cursor = page.next_cursor ?? undefined;
  } while (cursor && found.length < options.limit);
  return found;
}

/** `usr_…` as given, or the identity holding the email address. */
export async function resolveUser(deps: AdminDeps, reference: string): Promise<Sub> {
  if (reference.startsWith('usr_')) return reference as Sub;
  const holder = await findEmailHolder(deps.sql, normalizeEmail(reference));
  if (!holder) throw new OperationRefused(`no identity has the email address ${reference}`);
  return holder.identityId;
}

export async function inviteUser(deps: AdminDeps, actor: Actor, input: InvitationInput) {
  assertFits(Invitation, input, 'invitation');
  return inviteIdentity(deps, actor, input);
}

export async function suspendUser(deps: AdminDeps, actor: Actor, reference: string) {
  return suspendIdentity(deps, actor, await resolveUser(deps, reference));
}

export async function signOutUser(deps: AdminDeps, actor: Actor, reference: string) {
  return signOutEverywhere(deps, actor, await resolveUser(deps, reference));
}
