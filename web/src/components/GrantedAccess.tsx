import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { useAction, useApi } from '../hooks/use-api.ts';
import { useOutcomeFocus } from '../hooks/use-outcome-focus.ts';
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

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'unknown');

/** "Know who you are; see your name": the consent page's words, as one sentence. */
const sentence = (scopes: ScopeView[]) =>
  scopes.map((s, i) => (i === 0 ? s.description : s.description.charAt(0).toLowerCase() + s.description.slice(1)));

/** "Authorized from Safari on iPhone at 198.51.100.23, signed in …": one line per session the client came from. */
function sessionLabel(s: GrantSessionView, showIds: boolean): string {
  const browser = s.current ? 'this browser' : (s.user_agent ?? 'an unknown browser');
  const where = s.client_ip ? ` at ${s.client_ip}` : '';
  const since = s.signed_in_at ? `, signed in ${when(s.signed_in_at)}` : '';
  const ended = s.live ? '' : ' (since signed out)';
  return `Authorized from ${browser}${where}${since}${ended}${showIds ? ` · session ${s.id}` : ''}`;
}

function Entry(props: { grant: GrantedAccess; admin: boolean; busy: boolean; onRevoke: () => void }) {
  const g = props.grant;
  const name = g.application_name === g.client_name ? g.application_name : `${g.application_name} · ${g.client_name}`;
  return (
    <li>
      <p>
        <strong>{name}</strong>{' '}
        <span class={g.first_party ? 'badge badge-info' : 'badge badge-warn'}>
          {g.first_party ? 'First party' : 'Third party'}
        </span>
      </p>
      {g.active_grants > 0 ? (
        <p>Can: {sentence(g.scopes).join('; ')}.</p>
      ) : (
        <p>Holds no tokens now, but may get these again without asking: {sentence(g.consented_scopes).join('; ')}.</p>
      )}
      {props.admin && (
        <p class="hint">
          Scopes held: <code>{g.scopes.map((s) => s.scope).join(' ') || 'none'}</code>
          {!g.first_party && (
            <>
              {' '}
              · consented: <code>{g.consented_scopes.map((s) => s.scope).join(' ') || 'none'}</code>
            </>
          )}
        </p>
      )}
      <p class="hint">
        First used {when(g.first_used_at)}, last used {when(g.last_used_at)}
        {props.admin && (
          <>
            {' '}
            · client <code>{g.client_id}</code>
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
        aria-label={`Remove access for ${g.application_name}`}
        onClick={props.onRevoke}
        disabled={props.busy}
      >
        Remove access
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
      const whose = admin ? 'this account' : 'your account';
      setDone(
        g.first_party
          ? `${g.application_name} no longer has access to ${whose}.`
          : `${g.application_name} no longer has access to ${whose} and must ask again before it gets any.`,
      );
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
        <p data-testid="no-grants">
          {admin ? 'No application has access to this account.' : 'No application has access to your account.'}
        </p>
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
