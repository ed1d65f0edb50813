import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { counted } from './count-words.ts';
import type { IdentityDetail } from './types.ts';

const SESSIONS = { one: 'session', other: 'sessions' };
const GRANTS = { one: 'app grant', other: 'app grants' };

/** Suspend or reactivate, change identity assurance, end every session; each asks the API, then reloads. */
export function IdentityActions({ identity, onChanged }: { identity: IdentityDetail; onChanged: () => void }) {
  const action = useAction();
  const [done, setDone] = useState('');
  const path = `/admin/identities/${encodeURIComponent(identity.sub)}`;
  const name = identity.display_name || identity.sub;

  const run = async (work: () => Promise<string | null>) => {
    setDone('');
    const message = await action.run(work);
    if (message) {
      setDone(message);
      onChanged();
    }
  };
  const suspend = () =>
    run(async () => {
      if (!confirm(`Suspend ${name}? Their sessions end and apps lose access at once.`)) return null;
      const r = await api<{ sessions_revoked: number; grants_revoked: number }>('POST', `${path}/suspend`, {});
      return `Suspended. ${counted(r.sessions_revoked, SESSIONS)} ended, ${counted(r.grants_revoked, GRANTS)} revoked.`;
    });
  const reactivate = () =>
    run(async () => {
      await api('POST', `${path}/reactivate`, {});
      return 'Reactivated: they can sign in again.';
    });
  const assurance = (ial: 'ial1' | 'ial2') =>
    run(async () => {
      await api('POST', `${path}/assurance`, { ial });
      return `Identity assurance is now ${ial.toUpperCase()}.`;
    });
  const revokeSessions = () =>
    run(async () => {
      const r = await api<{ revoked: number }>('POST', `${path}/sessions/revoke`, {});
      return `${counted(r.revoked, SESSIONS)} ended.`;
    });

  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      <ErrorNotice error={action.error} />
      <p role="status" class="hint">
        {done}
      </p>
      <div class="actions">
        {identity.state === 'active' && (
          <button type="button" class="danger" onClick={() => void suspend()} disabled={action.busy}>
            Suspend
          </button>
        )}
        {identity.state === 'suspended' && (
          <button type="button" onClick={() => void reactivate()} disabled={action.busy}>
            Reactivate
          </button>
        )}
        {identity.ial === 'ial1' ? (
          <button type="button" onClick={() => void assurance('ial2')} disabled={action.busy}>
            Raise to IAL2
          </button>
        ) : (
          <button type="button" class="secondary" onClick={() => void assurance('ial1')} disabled={action.busy}>
            Lower to IAL1
          </button>
        )}
        <button
          type="button"
          class="secondary"
          onClick={() => void revokeSessions()}
          disabled={action.busy || identity.sessions.length === 0}
        >
          Sign out everywhere
        </button>
      </div>
    </section>
  );
}
