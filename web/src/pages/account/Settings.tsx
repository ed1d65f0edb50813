import { api } from '../../api.ts';
import { LoadState } from '../../components/Loading.tsx';
import { Page } from '../../components/Page.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { ConnectionsSection } from './ConnectionsSection.tsx';
import { EmailSection } from './EmailSection.tsx';
import { PasswordSection } from './PasswordSection.tsx';
import { ProfileSection } from './ProfileSection.tsx';
import { SessionsSection } from './SessionsSection.tsx';
import { TotpSection } from './TotpSection.tsx';
import type { Profile } from './types.ts';

export function Settings() {
  const profile = useApi<Profile>('/account/profile');
  const signOut = useAction();
  const leave = async () => {
    await signOut.run(() => api('POST', '/auth/logout', {}));
    location.assign('/signin');
  };
  return (
    <Page title="Your account">
      <LoadState loading={profile.loading} error={profile.error} />
      {profile.data && (
        <>
          <ProfileSection profile={profile.data} onChange={profile.reload} />
          <EmailSection profile={profile.data} />
          <PasswordSection onChange={profile.reload} />
          <TotpSection />
          <SessionsSection />
          <ConnectionsSection />
          <button type="button" class="secondary" onClick={() => void leave()} disabled={signOut.busy}>
            Sign out
          </button>
        </>
      )}
    </Page>
  );
}
