import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { EthereumButton } from '../../components/EthereumButton.tsx';
import { FarcasterButton } from '../../components/FarcasterButton.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { ProviderMark } from '../../components/ProviderMark.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { useSignInMethods } from '../../hooks/use-sign-in-methods.ts';
import { type MessageKey, t } from '../../i18n/i18n.ts';
import { ConfirmIdentity, needsConfirmation } from './ConfirmIdentity.tsx';
import type { Connection } from './types.ts';

const KIND_KEYS: Record<string, MessageKey> = {
  password: 'connections.kind.password',
  passkey: 'connections.kind.passkey',
  federated: 'connections.kind.federated',
  web3: 'connections.kind.web3',
  saml: 'connections.kind.saml',
  ldap: 'connections.kind.ldap',
};
const kindName = (kind: string) => {
  const key = KIND_KEYS[kind];
  return key ? t(key) : kind;
};

export function ConnectionsSection({ passwordSet }: { passwordSet: boolean }) {
  const list = useApi<{ connections: Connection[] }>('/account/connections');
  const action = useAction();
  const [password, setPassword] = useState('');
  const remove = async (id: string) => {
    // The removal answers 204 (no body, so api() resolves to null): success is "did not throw", not a truthy body.
    const removed = await action.run(async () => {
      await api('POST', `/account/connections/${encodeURIComponent(id)}/remove`, password ? { password } : {});
      return true;
    });
    if (removed) {
      setPassword('');
      list.reload();
    }
  };
  const only = (list.data?.connections.length ?? 0) <= 1;
  const methods = useSignInMethods();
  const redirect = (methods?.providers ?? []).filter((p) => p.kind === 'redirect' && p.start_url !== null);
  const nameOf = (provider: string) => redirect.find((p) => p.id === provider)?.name ?? provider;
  const linked = new Set(list.data?.connections.filter((c) => c.kind === 'federated').map((c) => c.provider));
  const linkable = redirect.filter((p) => !linked.has(p.id));
  // SAML connections link through /auth/saml/<id>/link (the identity provider signs in, then the ACS links).
  const samlConnections = (methods?.providers ?? []).filter((p) => p.kind === 'saml');
  const samlName = (id: string) => samlConnections.find((p) => p.id === id)?.name ?? null;
  const linkedSaml = new Set(list.data?.connections.filter((c) => c.kind === 'saml').map((c) => c.provider));
  const linkableSaml = samlConnections.filter((p) => !linkedSaml.has(p.id));
  const ethereum = (methods?.providers ?? []).some((p) => p.id === 'ethereum' && p.start_url !== null);
  const farcaster = (methods?.providers ?? []).some((p) => p.id === 'farcaster' && p.start_url !== null);
  // A passkey's label is the name its owner gave it; one still named "Passkey" would read "Passkey Passkey".
  const passkeyLabel = (label: string) =>
    label && label.toLowerCase() !== 'passkey' && label !== kindName('passkey') ? label : '';
  /** The method as words, for its "Remove" button: "Remove GitHub (alice)", not one "Remove" among several. */
  const methodName = (c: Connection): string => {
    const withLabel = (name: string, label: string | null | undefined) => (label ? `${name} (${label})` : name);
    if (c.kind === 'federated') return withLabel(nameOf(c.provider), c.label);
    if (c.kind === 'saml') return withLabel(samlName(c.provider) ?? `${kindName('saml')} ${c.provider}`, c.label);
    if (c.kind === 'ldap') return withLabel(c.provider_name ?? `${kindName('ldap')} ${c.provider}`, c.label);
    if (c.kind === 'web3' && c.provider === 'farcaster') return withLabel('Farcaster', c.label);
    if (c.kind === 'web3') return withLabel(t('connections.ethereumWallet'), c.label);
    if (c.kind === 'passkey') return withLabel(kindName('passkey'), passkeyLabel(c.label));
    return withLabel(kindName(c.kind), c.subject);
  };
  return (
    <section aria-labelledby="connections-heading">
      <h2 id="connections-heading">{t('connections.heading')}</h2>
      <p class="hint" id="last-method-rule">
        {t('connections.lastRule')}
      </p>
      <LoadState loading={list.loading} error={list.error} />
      <ErrorNotice error={action.error} />
      {(needsConfirmation(action.error) || password) && (
        <ConfirmIdentity
          id="connections-password"
          passwordSet={passwordSet}
          password={password}
          onPassword={setPassword}
        />
      )}
      {list.data && (
        <ul class="connections">
          {list.data.connections.map((c) => (
            <li key={c.id}>
              {c.kind === 'federated' ? (
                <>
                  <ProviderMark name={nameOf(c.provider)} /> <strong>{nameOf(c.provider)}</strong>
                  {c.label && ` (${c.label})`}
                </>
              ) : c.kind === 'saml' ? (
                <>
                  {/* The label is the email the identity provider sent, or its NameID. */}
                  <ProviderMark name={samlName(c.provider) ?? 'SAML'} />{' '}
                  <strong>{samlName(c.provider) ?? `${kindName('saml')} ${c.provider}`}</strong> ({c.label})
                </>
              ) : c.kind === 'ldap' ? (
                <>
                  {/* Known by the directory's configured name, not its id; the label is the directory's email for it. */}
                  <strong>{c.provider_name ?? `${kindName('ldap')} ${c.provider}`}</strong>
                  {c.label && ` (${c.label})`}
                </>
              ) : c.kind === 'web3' && c.provider === 'farcaster' ? (
                <>
                  {/* The label is the username and fid, e.g. "@alice, fid 1234". */}
                  <ProviderMark name="Farcaster" /> <strong>Farcaster</strong> ({c.label})
                </>
              ) : c.kind === 'web3' ? (
                <>
                  {/* The label is the shortened address (0x1234…abcd); the chain stays in the method's key. */}
                  <ProviderMark name="Ethereum" /> <strong>{t('connections.ethereumWallet')}</strong> ({c.label})
                </>
              ) : (
                <>
                  <strong>{kindName(c.kind)}</strong>
                  {c.subject && ` (${c.subject})`}{' '}
                  {/* A passkey is known by the name its owner gave it; other methods by their provider. */}
                  <span class="hint">
                    {c.kind === 'passkey' ? passkeyLabel(c.label) : c.provider !== 'local' && c.provider}
                  </span>
                </>
              )}
              <button
                type="button"
                class="secondary"
                onClick={() => void remove(c.id)}
                disabled={action.busy || only}
                aria-describedby={only ? 'last-method-rule' : undefined}
                aria-label={t('connections.removeNamed', { method: methodName(c) })}
              >
                {t('common.remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {list.data && ethereum && (
        <div class="other-methods">
          <EthereumButton
            base="/account/connections/ethereum"
            label={(wallet, several) => t('connections.addEthereum', { wallet, several: several ? 'yes' : 'no' })}
            done={list.reload}
          />
        </div>
      )}
      {list.data && farcaster && (
        <div class="other-methods">
          <FarcasterButton
            base="/account/connections/farcaster"
            label={t('connections.addFarcaster')}
            done={list.reload}
          />
        </div>
      )}
      {list.data && linkableSaml.length > 0 && (
        <ul class="other-methods" aria-label={t('connections.linkCompany')}>
          {linkableSaml.map((p) => (
            <li key={p.id}>
              <a
                class="button secondary"
                href={`/auth/saml/${encodeURIComponent(p.id)}/link?return_to=%2Fsettings`}
                target="_top"
              >
                <ProviderMark name={p.name} /> {t('connections.addSignIn', { provider: p.name })}
              </a>
            </li>
          ))}
        </ul>
      )}
      {list.data && linkable.length > 0 && (
        <ul class="other-methods" aria-label={t('connections.linkOther')}>
          {linkable.map((p) => (
            <li key={p.id}>
              <a
                class="button secondary"
                href={`/account/connections/start?provider=${encodeURIComponent(p.id)}&return_to=%2Fsettings`}
                target="_top"
              >
                <ProviderMark name={p.name} /> {t('connections.addSignIn', { provider: p.name })}
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
