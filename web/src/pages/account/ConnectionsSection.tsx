import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import type { Connection } from './types.ts';

const KIND_NAMES: Record<string, string> = {
  password: 'Password',
  passkey: 'Passkey',
  federated: 'Sign-in provider',
  web3: 'Wallet',
  saml: 'Company sign-in (SAML)',
  ldap: 'Directory (LDAP)',
};

export function ConnectionsSection() {
  const list = useApi<{ connections: Connection[] }>('/account/connections');
  const action = useAction();
  const remove = async (id: string) => {
    if (await action.run(() => api('POST', `/account/connections/${encodeURIComponent(id)}/remove`, {}))) list.reload();
  };
  const only = (list.data?.connections.length ?? 0) <= 1;
  return (
    <section aria-labelledby="connections-heading">
      <h2 id="connections-heading">Ways to sign in</h2>
      <p class="hint" id="last-method-rule">
        Every account keeps at least one way to sign in, so the last one cannot be removed. Add another before removing
        it.
      </p>
      <LoadState loading={list.loading} error={list.error} />
      <ErrorNotice error={action.error} />
      {list.data && (
        <ul class="connections">
          {list.data.connections.map((c) => (
            <li key={c.id}>
              <strong>{KIND_NAMES[c.kind] ?? c.kind}</strong>
              {c.subject && ` (${c.subject})`} <span class="hint">{c.provider !== 'local' && c.provider}</span>
              <button
                type="button"
                class="secondary"
                onClick={() => void remove(c.id)}
                disabled={action.busy || only}
                aria-describedby={only ? 'last-method-rule' : undefined}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
