// GET and PATCH /account/profile.
import { assertDisplayText } from '../http/display-text.ts';
import { NotFound } from '../http/errors.ts';
import { isLocale, type Locale } from '../i18n/locales.ts';
import type { Sub } from '../identity/ids.ts';
import { findIdentityLocale, findProfile, updateDisplayName, updateIdentityLocale } from '../identity/store.ts';
import { findPasswordLogin } from '../login/local/credential-store.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';

export interface ProfileView {
  identity_id: string;
  display_name: string;
  email: string | null;
  email_verified: boolean;
  assurance: string;
  password_set: boolean;
  /** The language chosen for pages and messages; null follows the browser's. */
  locale: Locale | null;
  created_at: string;
}

export async function readProfile(deps: AccountDeps, identityId: Sub): Promise<ProfileView> {
  const profile = await findProfile(deps.sql, identityId);
  if (!profile) throw new NotFound('No such account');
  return {
    identity_id: profile.id,
    display_name: profile.displayName,
    email: profile.email,
    email_verified: profile.emailVerified,
    assurance: profile.assurance,
    password_set: (await findPasswordLogin(deps.sql, identityId)) !== null,
    locale: await savedLocale(deps, identityId),
    created_at: profile.createdAt.toISOString(),
  };
}

/** A stored language this version no longer ships reads as "follow the browser". */
async function savedLocale(deps: AccountDeps, identityId: Sub): Promise<Locale | null> {
  const locale = await findIdentityLocale(deps.sql, identityId);
  return isLocale(locale) ? locale : null;
}

export async function changeProfile(
  deps: AccountDeps,
  facts: RequestFacts,
  identityId: Sub,
  changes: { displayName?: string; locale?: Locale | null },
): Promise<ProfileView> {
  assertDisplayText(changes.displayName, 'body.display_name');
  if (changes.displayName !== undefined)
    await updateDisplayName(deps.sql, identityId, changes.displayName.trim(), deps.clock());
  if (changes.locale !== undefined) await updateIdentityLocale(deps.sql, identityId, changes.locale, deps.clock());
  if (changes.displayName !== undefined || changes.locale !== undefined)
    await deps.audit.record({ event: 'profile.updated', actor: identityId, subject: identityId, ...facts });
  return await readProfile(deps, identityId);
}
