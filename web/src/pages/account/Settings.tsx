import { useState } from 'preact/hooks';
import { LoadState } from '../../components/Loading.tsx';
import { Page } from '../../components/Page.tsx';
import { SignOutButton } from '../../components/SignOutButton.tsx';
import { useApi } from '../../hooks/use-api.ts';
import { useSignInMethods } from '../../hooks/use-sign-in-methods.ts';
import { type MessageKey, t } from '../../i18n/i18n.ts';
import { AdministeredAccount } from './AdministeredAccount.tsx';
import { ConnectionsSection } from './ConnectionsSection.tsx';
import { EmailSection } from './EmailSection.tsx';
import { GrantsSection } from './GrantsSection.tsx';
import { LanguageSection } from './LanguageSection.tsx';
import { PasskeysSection } from './PasskeysSection.tsx';
import { PasswordSection } from './PasswordSection.tsx';
import { ProfileSection } from './ProfileSection.tsx';
import { SessionsSection } from './SessionsSection.tsx';
import { TotpSection } from './TotpSection.tsx';
import type { Profile } from './types.ts';

/** The account page: self-service sections when GET /auth/providers says self-service works, else what admins do. */
export function Settings() {
  const methods = useSignInMethods();
  if (!methods)
    return (
      <Page title={t('account.title')}>
        <p class="loading" role="status">
          {t('common.loading')}
        </p>
      </Page>
    );
  return methods.self_service ? <SelfServiceSettings /> : <AdministeredSettings />;
}

/** The account page's sections, in page order: the index at the top links to each one's heading. */
const SECTIONS: [string, MessageKey][] = [
  ['profile-heading', 'profile.heading'],
  ['language-heading', 'language.heading'],
  ['email-heading', 'email.heading'],
  ['password-heading', 'password.heading'],
  ['totp-heading', 'totp.heading'],
  ['passkeys-heading', 'passkeys.heading'],
  ['sessions-heading', 'sessions.heading'],
  ['grants-heading', 'grants.heading'],
  ['connections-heading', 'connections.heading'],
];

/**
 * The top of the account page: a short index of its sections (on a phone the page is several screens long) and
 * "Sign out", so nobody scrolls to the end to leave.
 */
function AccountTop({ sections }: { sections: [string, MessageKey][] }) {
  return (
    <div class="account-top">
      {sections.length > 0 && (
        <nav class="account-index" aria-label={t('account.onThisPage')}>
          <ul>
            {sections.map(([id, key]) => (
              <li key={id}>
                <a href={`#${id}`}>{t(key)}</a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      <SignOutButton label={t('account.signOut')} />
    </div>
  );
}

function AdministeredSettings() {
  return (
    <Page title={t('account.title')}>
      <AccountTop sections={[]} />
      <AdministeredAccount />
    </Page>
  );
}

function SelfServiceSettings() {
  const profile = useApi<Profile>('/account/profile');
  // Passkeys are sign-in methods too: a change there redraws the list of ways to sign in.
  const [methodsSeen, setMethodsSeen] = useState(0);
  return (
    <Page title={t('account.title')}>
      <LoadState loading={profile.loading} error={profile.error} />
      {profile.data && (
        <>
          <AccountTop sections={SECTIONS} />
          <ProfileSection profile={profile.data} onChange={profile.reload} />
          <LanguageSection profile={profile.data} />
          <EmailSection profile={profile.data} />
          <PasswordSection passwordSet={profile.data.password_set} onChange={profile.reload} />
          <TotpSection />
          <PasskeysSection passwordSet={profile.data.password_set} onChange={() => setMethodsSeen((n) => n + 1)} />
          <SessionsSection />
          <GrantsSection />
          <ConnectionsSection key={methodsSeen} passwordSet={profile.data.password_set} />
        </>
      )}
    </Page>
  );
}
