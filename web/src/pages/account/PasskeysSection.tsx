import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { addPasskey, passkeysSupported } from '../../passkeys.ts';
import { ConfirmIdentity } from './ConfirmIdentity.tsx';

interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  synced: boolean;
}

const day = (iso: string) => new Date(iso).toLocaleDateString();

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
    }, 'Passkey added.');
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
    }, 'Passkey removed.');
  const rename = (event: Event) => {
    event.preventDefault();
    if (!renaming) return;
    void action.run(async () => {
      await api('PATCH', `/account/passkeys/${encodeURIComponent(renaming.id)}`, { name: renaming.name });
      setRenaming(null);
      setStatus('Passkey renamed.');
      list.reload();
      onChange();
    });
  };

  return (
    <section aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p class="hint">
        A passkey signs you in with your fingerprint, face or screen lock: no password or code to type, and it only
        works on this site.
      </p>
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
                    label="New name"
                    required
                    maxLength={64}
                    value={renaming.name}
                    onValue={(value) => setRenaming({ id: p.id, name: value })}
                    autoFocus
                  />
                  <button type="submit" disabled={action.busy}>
                    Save name
                  </button>
                  <button type="button" class="secondary" onClick={() => setRenaming(null)}>
                    Cancel
                  </button>
                </form>
              </li>
            ) : (
              <li key={p.id}>
                <strong>{p.name}</strong>{' '}
                <span class="hint">
                  added {day(p.created_at)}
                  {p.last_used_at ? `, last used ${day(p.last_used_at)}` : ', never used'}
                  {p.synced ? ' · synced' : ' · this device only'}
                </span>
                <button type="button" class="secondary" onClick={() => setRenaming({ id: p.id, name: p.name })}>
                  Rename
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  onClick={() => remove(p.id)}
                  aria-label={`Remove ${p.name}`}
                >
                  Remove
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
            label="Label for a new passkey"
            hint="Optional, e.g. “Work laptop”: it helps you tell your passkeys apart."
            maxLength={64}
            value={name}
            onValue={setName}
          />
          <button type="submit" disabled={action.busy}>
            Add a passkey
          </button>
        </form>
      ) : (
        <p class="hint">This browser cannot create passkeys.</p>
      )}
    </section>
  );
}
