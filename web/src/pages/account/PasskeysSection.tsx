import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { date, t } from '../../i18n/i18n.ts';
import { addPasskey, passkeysSupported } from '../../passkeys.ts';
import { ConfirmIdentity } from './ConfirmIdentity.tsx';

interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  synced: boolean;
}

/**
 * Add, rename and remove passkeys. Adding and removing need a recent sign-in; when the server says the sign-in is
 * too old, the person confirms it is them: the current password (when they have one) and the same action again, or
 * signing in again with any of their methods.
 */
export function PasskeysSection({ passwordSet, onChange }: { passwordSet: boolean; onChange: () => void }) {
  const list = useApi<{ passkeys: Passkey[] }>('/account/passkeys');
  const action = useAction();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [status, setStatus] = useState('');

  const confirmed = async <T,>(work: (password?: string) => Promise<T>, done: string) => {
    const result = await action.run(() => work(confirming && password ? password : undefined));
    if (result === null) return;
    setStatus(done);
    setPassword('');
    setConfirming(false);
    list.reload();
    onChange();
  };
  const add = (event: Event) => {
    event.preventDefault();
    void confirmed(async (pw) => {
      await addPasskey(name, pw).catch((caught: { code?: string }) => {
        if (caught.code === 'reauthentication_required') setConfirming(true);
        throw caught;
      });
      setName('');
      return true;
    }, t('passkeys.added'));
  };
  const remove = (id: string) =>
    void confirmed(async (pw) => {
      await api('DELETE', `/account/passkeys/${encodeURIComponent(id)}`, pw ? { password: pw } : {}).catch(
        (caught: { code?: string }) => {
          if (caught.code === 'reauthentication_required') setConfirming(true);
          throw caught;
        },
      );
      return true; // 204 has no body: success is that nothing was thrown
    }, t('passkeys.removed'));
  const rename = (event: Event) => {
    event.preventDefault();
    if (!renaming) return;
    void action.run(async () => {
      await api('PATCH', `/account/passkeys/${encodeURIComponent(renaming.id)}`, { name: renaming.name });
      setRenaming(null);
      setStatus(t('passkeys.renamed'));
      list.reload();
      onChange();
    });
  };

  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">{t('passkeys.heading')}</h2>
      <p class="hint">{t('passkeys.explain')}</p>
      <LoadState loading={list.loading} error={list.error} />
      <ErrorNotice error={action.error} />
      {status && <p role="status">{status}</p>}
      {list.data && list.data.passkeys.length > 0 && (
        <ul class="passkeys">
          {list.data.passkeys.map((p) =>
            renaming?.id === p.id ? (
              <li key={p.id}>
                <form onSubmit={rename}>
                  <Field
                    id={`passkey-name-${p.id}`}
                    label={t('passkeys.newName')}
                    required
                    maxLength={64}
                    value={renaming.name}
                    onValue={(value) => setRenaming({ id: p.id, name: value })}
                    autoFocus
                  />
                  <button type="submit" disabled={action.busy}>
                    {t('common.saveName')}
                  </button>
                  <button type="button" class="secondary" onClick={() => setRenaming(null)}>
                    {t('common.cancel')}
                  </button>
                </form>
              </li>
            ) : (
              <li key={p.id}>
                <strong>{p.name}</strong>{' '}
                <span class="hint">
                  {t('passkeys.details', {
                    added: date(p.created_at),
                    lastUsed: p.last_used_at ? date(p.last_used_at) : 'never',
                    synced: p.synced ? 'yes' : 'no',
                  })}
                </span>
                <button type="button" class="secondary" onClick={() => setRenaming({ id: p.id, name: p.name })}>
                  {t('passkeys.rename')}
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  onClick={() => remove(p.id)}
                  aria-label={t('passkeys.removeNamed', { name: p.name })}
                >
                  {t('common.remove')}
                </button>
              </li>
            ),
          )}
        </ul>
      )}
      {confirming && (
        <ConfirmIdentity id="passkey-password" passwordSet={passwordSet} password={password} onPassword={setPassword} />
      )}
      {passkeysSupported() ? (
        <form onSubmit={add}>
          <Field
            id="passkey-name"
            label={t('passkeys.label')}
            hint={t('passkeys.labelHint')}
            maxLength={64}
            value={name}
            onValue={setName}
          />
          <button type="submit" disabled={action.busy}>
            {t('passkey.add')}
          </button>
        </form>
      ) : (
        <p class="hint">{t('passkeys.unsupported')}</p>
      )}
    </section>
  );
}
