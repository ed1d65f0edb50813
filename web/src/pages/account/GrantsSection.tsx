import { GrantedAccessList } from '../../components/GrantedAccess.tsx';
import { t } from '../../i18n/i18n.ts';

/** The applications the person has let into their account, and the way to take that back. */
export function GrantsSection() {
  return (
    <section aria-labelledby="grants-heading">
      <h2 id="grants-heading">{t('grants.heading')}</h2>
      <p class="hint">{t('grants.explain')}</p>
      <GrantedAccessList
        path="/account/grants"
        revokePath={(clientId) => `/account/grants/${encodeURIComponent(clientId)}/revoke`}
        admin={false}
      />
    </section>
  );
}
