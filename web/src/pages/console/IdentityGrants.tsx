import { GrantedAccessList } from '../../components/GrantedAccess.tsx';

/** An identity's applications with access (one entry per client), each removable; reloads with the identity. */
export function IdentityGrants({ sub, reloadWith }: { sub: string; reloadWith: unknown }) {
  const base = `/admin/identities/${encodeURIComponent(sub)}/grants`;
  return (
    <section aria-labelledby="grants-heading">
      <h2 id="grants-heading">Applications with access</h2>
      <p class="hint">
        Removing an application's access ends its tokens at once; a third-party application must ask the person for
        consent again.
      </p>
      <GrantedAccessList
        path={base}
        revokePath={(clientId) => `${base}/${encodeURIComponent(clientId)}/revoke`}
        admin={true}
        reloadWith={reloadWith}
      />
    </section>
  );
}
