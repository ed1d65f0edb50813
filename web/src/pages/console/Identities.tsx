import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { EmptyState } from '../../components/EmptyState.tsx';
import { Field } from '../../components/Field.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useApi } from '../../hooks/use-api.ts';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { InvitePerson } from './InvitePerson.tsx';
import { type IdentitySummary, shownState, when } from './types.ts';

const listUrl = (base: string, q: string, cursor?: string) => {
  const query = new URLSearchParams();
  if (q) query.set('q', q);
  if (cursor) query.set('cursor', cursor);
  const text = query.toString();
  return text ? `${base}?${text}` : base;
};

/** Search by email (or its start), name or sub; the query lives in the URL so back and reload keep it. */
export function Identities() {
  const location = useLocation();
  const q = location.query.q ?? '';
  const cursor = location.query.cursor;
  const [text, setText] = useState(q);
  const list = useApi<{ identities: IdentitySummary[]; next_cursor: string | null }>(
    listUrl('/admin/identities', q, cursor),
  );

  const search = (event: Event) => {
    event.preventDefault();
    location.route(listUrl('/admin/console/identities', text.trim()));
  };

  return (
    <ConsoleLayout section="identities" title="Identities" access={list.error}>
      <search>
        <form onSubmit={search} aria-labelledby="search-heading">
          <h2 id="search-heading">Find a person</h2>
          <Field
            id="identity-query"
            label="Search"
            hint="An email address or its beginning, part of a name, or a sub (usr_…). Empty lists everyone."
            value={text}
            onValue={setText}
            maxLength={320}
          />
          <button type="submit">Search</button>
        </form>
      </search>
      <LoadState loading={list.loading} error={list.error} />
      {list.data?.identities.length === 0 && (
        <EmptyState>
          {q
            ? `Nobody matches “${q}”. Search by a part of a name or an email address.`
            : 'Nobody has an account yet. People appear here once they sign up or are added.'}
        </EmptyState>
      )}
      {!!list.data?.identities.length && (
        <>
          <table>
            <caption>
              {list.data.identities.length === 0
                ? 'Nobody matches.'
                : `${list.data.identities.length} identit${list.data.identities.length === 1 ? 'y' : 'ies'}${q ? ` matching “${q}”` : ''}`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">State</th>
                <th scope="col">Assurance</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.data.identities.map((i) => (
                <tr key={i.sub}>
                  <td data-label="Name">
                    <a href={`/admin/console/identities/${encodeURIComponent(i.sub)}`}>{i.display_name || i.sub}</a>
                  </td>
                  <td data-label="Email">{i.email ?? '—'}</td>
                  <td data-label="State">{shownState(i)}</td>
                  <td data-label="Assurance">{i.ial}</td>
                  <td data-label="Created">{when(i.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>
            {cursor && <a href={listUrl('/admin/console/identities', q)}>First page</a>}{' '}
            {list.data.next_cursor && (
              <a href={listUrl('/admin/console/identities', q, list.data.next_cursor)}>Next page</a>
            )}
          </p>
        </>
      )}
      {list.data && <InvitePerson onInvited={list.reload} />}
    </ConsoleLayout>
  );
}
