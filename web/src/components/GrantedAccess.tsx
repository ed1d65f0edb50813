import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { useAction, useApi } from '../hooks/use-api.ts';
import { useOutcomeFocus } from '../hooks/use-outcome-focus.ts';
import { dateTime, type MessageKey, pageLocale, t, tx } from '../i18n/i18n.ts';
import { ErrorNotice } from './ErrorNotice.tsx';
import { LoadState } from './Loading.tsx';
import { StatusNotice } from './StatusNotice.tsx';

// The applications holding access to an account, one entry per client (docs/account.md "Applications with access"),
// as GET /account/grants and GET /admin/identities/{sub}/grants answer them.

export interface ScopeView {
  scope: string;
  description: string;
}

export interface GrantSessionView {
  id: string;
  /** Only on the person's own list. */
  current?: boolean;
  live: boolean;
  signed_in_at: string | null;
  client_ip: string | null;
  user_agent: string | null;
  /** The browser and system in words ("Firefox 128 on Windows 10"), or null when the User-Agent says neither. */
  device: string | null;
}

export interface GrantedAccess {
  client_id: string;
  client_name: string;
  application_id: string;
  application_name: string;
  first_party: boolean;
  active_grants: number;
  scopes: ScopeView[];
  consented_scopes: ScopeView[];
  first_used_at: string | null;
  last_used_at: string | null;
  sessions: GrantSessionView[];
}

const when = (iso: string | null) => (iso ? dateTime(iso) : t('grants.unknownTime'));

/** Our own scopes in the page's language; a resource's scope as the server words it. */
const SCOPE_KEYS: Record<string, MessageKey> = {
  openid: 'scope.openid',
  profile: 'scope.profile',
  email: 'scope.email',
  offline_access: 'scope.offline_access',
};
const described = (s: ScopeView) => {
  const key = SCOPE_KEYS[s.scope];
  return key ? t(key) : s.description;
};

/**
 * "Know who you are; see your name": the consent page's words, as one sentence. Only English lowers the later
 * capitals: German capitalizes its nouns and its polite "Sie", so lowering there would misspell.
 */
const sentence = (scopes: ScopeView[]) =>
  scopes
    .map(described)
    .map((d, i) => (i === 0 || pageLocale() !== 'en' ? d : d.charAt(0).toLowerCase() + d.slice(1)))
    .join('; ');

/** "Authorized from Safari on iPhone at 198.51.100.23, signed in …": one line per session the client came from. */
function sessionLabel(s: GrantSessionView, showIds: boolean): string {
  const label = t('grants.session', {
    browser: s.current ? 'current' : (s.device ?? 'unknown'),
    ip: s.client_ip ?? 'none',
    signedIn: s.signed_in_at ? when(s.signed_in_at) : 'none',
    live: s.live ? 'yes' : 'no',
  });
  return showIds ? `${label} · ${t('grants.sessionId', { id: s.id })}` : label;
}

function Entry(props: { grant: GrantedAccess; admin: boolean; busy: boolean; onRevoke: () => void }) {
  const g = props.grant;
  const name = g.application_name === g.client_name ? g.application_name : `${g.application_name} · ${g.client_name}`;
  return (
    <li>
      <p>
        <strong>{name}</strong>{' '}
        <span class={g.first_party ? 'badge badge-info' : 'badge badge-warn'}>
          {g.first_party ? t('grants.firstParty') : t('grants.thirdParty')}
        </span>
      </p>
      {g.active_grants > 0 ? (
        <p>{t('grants.can', { scopes: sentence(g.scopes) })}</p>
      ) : (
        <p>{t('grants.holdsNone', { scopes: sentence(g.consented_scopes) })}</p>
      )}
      {props.admin && (
        <p class="hint">
          {tx('grants.scopesHeld', {
            scopes: <code>{g.scopes.map((s) => s.scope).join(' ') || t('grants.noScopes')}</code>,
          })}
          {!g.first_party && (
            <>
              {' · '}
              {tx('grants.consented', {
                scopes: <code>{g.consented_scopes.map((s) => s.scope).join(' ') || t('grants.noScopes')}</code>,
              })}
            </>
          )}
        </p>
      )}
      <p class="hint">
        {t('grants.used', { first: when(g.first_used_at), last: when(g.last_used_at) })}
        {props.admin && (
          <>
            {' · '}
            {tx('grants.client', { id: <code>{g.client_id}</code> })}
          </>
        )}
      </p>
      {g.sessions.map((s) => (
        <p class="hint" key={s.id}>
          {sessionLabel(s, props.admin)}
        </p>
      ))}
      <button
        type="button"
        class="secondary"
        aria-label={t('grants.removeFor', { application: g.application_name })}
        onClick={props.onRevoke}
        disabled={props.busy}
      >
        {t('grants.remove')}
      </button>
    </li>
  );
}

export interface GrantedAccessProps {
  /** The list to load. */
  path: string;
  /** Where to POST to end one client's access. */
  revokePath: (clientId: string) => string;
  /** The console's view: client and session ids shown, words about "this" account. */
  admin: boolean;
  /** The list loads again whenever this changes (the console's identity after a suspension, say). */
  reloadWith?: unknown;
}

/** Lists the applications with access and removes one's, then says so and reloads; focus moves to the outcome. */
export function GrantedAccessList({ path, revokePath, admin, reloadWith }: GrantedAccessProps) {
  const list = useApi<{ grants: GrantedAccess[] }>(path);
  const seen = useRef(reloadWith);
  useEffect(() => {
    if (seen.current === reloadWith) return;
    seen.current = reloadWith;
    list.reload();
  }, [reloadWith, list.reload]);
  const action = useAction();
  const outcome = useOutcomeFocus<HTMLDivElement>();
  const [done, setDone] = useState('');
  const revoke = async (g: GrantedAccess) => {
    setDone('');
    // The person's route answers 204 (no body): success is that the request did not throw.
    const ended = await action.run(async () => {
      await api('POST', revokePath(g.client_id), {});
      return true;
    });
    if (ended) {
      const words = { application: g.application_name, whose: admin ? 'admin' : 'mine' };
      setDone(g.first_party ? t('grants.removed', words) : t('grants.removedMustAsk', words));
      list.reload();
    }
    outcome.settled();
  };
  const grants = list.data?.grants ?? [];
  return (
    <div ref={outcome.ref}>
      <ErrorNotice error={action.error} />
      <StatusNotice message={done} />
      <LoadState loading={list.loading && !list.data} error={list.error} />
      {list.data && grants.length === 0 && (
        <p data-testid="no-grants">{admin ? t('grants.noneAdmin') : t('grants.noneMine')}</p>
      )}
      {grants.length > 0 && (
        <ul class="sessions" data-testid="grants">
          {grants.map((g) => (
            <Entry key={g.client_id} grant={g} admin={admin} busy={action.busy} onRevoke={() => void revoke(g)} />
          ))}
        </ul>
      )}
    </div>
  );
}
