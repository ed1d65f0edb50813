import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { dateTime, t } from '../../i18n/i18n.ts';
import type { SessionView } from './types.ts';

const when = dateTime;

export function SessionsSection() {
  const list = useApi<{ sessions: SessionView[] }>('/account/sessions');
  const action = useAction();
  const revoke = async (id: string) => {
    // The route answers 204 (no body): success is that the request did not throw.
    const ended = await action.run(async () => {
      await api('POST', `/account/sessions/${encodeURIComponent(id)}/revoke`, {});
      return true;
    });
    if (ended) list.reload();
  };
  const revokeOthers = async () => {
    if (await action.run(() => api('POST', '/account/sessions/revoke-others', {}))) list.reload();
  };
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">{t('sessions.heading')}</h2>
      <LoadState loading={list.loading} error={list.error} />
      <ErrorNotice error={action.error} />
      {list.data && (
        <>
          <ul class="sessions">
            {list.data.sessions.map((s) => (
              <li key={s.id}>
                <p>
                  <strong title={s.user_agent ?? undefined}>{s.device ?? t('sessions.unknownBrowser')}</strong>
                  {s.current && t('sessions.thisBrowser')}
                </p>
                <p class="hint">
                  {t('sessions.details', {
                    ip: s.client_ip ?? 'none',
                    signedIn: when(s.created_at),
                    lastSeen: when(s.last_seen_at),
                  })}
                </p>
                {!s.current && (
                  <button type="button" class="secondary" onClick={() => void revoke(s.id)} disabled={action.busy}>
                    {t('sessions.signOut')}
                  </button>
                )}
              </li>
            ))}
          </ul>
          {list.data.sessions.length <= 1 && <p class="empty">{t('sessions.only')}</p>}
          {list.data.sessions.length > 1 && (
            <button type="button" onClick={() => void revokeOthers()} disabled={action.busy}>
              {t('sessions.signOutOthers')}
            </button>
          )}
        </>
      )}
    </section>
  );
}
