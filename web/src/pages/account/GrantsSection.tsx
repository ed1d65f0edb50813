import { GrantedAccessList } from '../../components/GrantedAccess.tsx';

/** The applications the person has let into their account, and the way to take that back. */
export function GrantsSection() {
  return (
    <section aria-labelledby="grants-heading">
      <h2 id="grants-heading">Applications with access</h2>
      <p class="hint">
        Applications you signed in to with this account. Removing one's access signs it out at once; a third-party
        application must ask you again before it gets any.
      </p>
      <GrantedAccessList
        path="/account/grants"
        revokePath={(clientId) => `/account/grants/${encodeURIComponent(clientId)}/revoke`}
        admin={false}
      />
    </section>
  );
}
