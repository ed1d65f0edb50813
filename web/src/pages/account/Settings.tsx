import { useState } from 'preact/hooks';
import { ApiError, api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { Page } from '../../components/Page.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { useSignInMethods } from '../../hooks/use-sign-in-methods.ts';
import { t } from '../../i18n/i18n.ts';
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

function AdministeredSettings() {
  return (
    <Page title={t('account.title')}>
      <AdministeredAccount />
      <SignOut />
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
          <ProfileSection profile={profile.data} onChange={profile.reload} />
          <LanguageSection profile={profile.data} />
          <EmailSection profile={profile.data} />
          <PasswordSection passwordSet={profile.data.password_set} onChange={profile.reload} />
          <TotpSection />
          <PasskeysSection passwordSet={profile.data.password_set} onChange={() => setMethodsSeen((n) => n + 1)} />
          <SessionsSection />
          <GrantsSection />
          <ConnectionsSection key={methodsSeen} passwordSet={profile.data.password_set} />
          <SignOut />
        </>
      )}
    </Page>
  );
}

function SignOut() {
  const signOut = useAction();
  // Leave only once the server ended the session: on failure the person stays, sees why, and may still be signed in.
  const leave = async () => {
    const ended = await signOut.run(async () => {
      try {
        await api('POST', '/auth/logout', {});
      } catch (caught) {
        // 401: the session had already ended elsewhere, which is what signing out wanted.
        if (!(caught instanceof ApiError && caught.status === 401)) throw caught;
      }
      return true;
    });
    if (ended) location.assign('/signin');
  };
  return (
    <>
      <ErrorNotice error={signOut.error} />
      <button type="button" class="secondary" onClick={() => void leave()} disabled={signOut.busy}>
        {t('account.signOut')}
      </button>
    </>
  );
}
