import type { ComponentChildren } from 'preact';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useApi } from '../../hooks/use-api.ts';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { StatusBadge } from './StatusBadge.tsx';
import {
  type Check,
  type CheckStatus,
  DELIVERY_STATES,
  PROVIDER_STATES,
  STATUS_WORDS,
  type StatusReport,
} from './status-types.ts';

const day = (iso: string) => new Date(iso).toLocaleDateString();

const SUMMARY: Record<CheckStatus, string> = {
  ok: 'Everything checked works.',
  info: 'Everything checked works; some notes below.',
  warn: 'Gatehouse runs, but something below needs attention.',
  fail: 'Something below is broken and needs fixing.',
};

function Facts({ items }: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="status-facts">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One part of the report: heading with its status in words, the key facts, then doctor's lines. */
function Part(props: {
  id: string;
  title: string;
  status: CheckStatus;
  checks: Check[];
  children?: ComponentChildren;
}) {
  return (
    <section class="panel" aria-labelledby={`${props.id}-heading`} data-testid={`status-${props.id}`}>
      <h2 id={`${props.id}-heading`}>
        {props.title} <StatusBadge status={props.status} />
      </h2>
      {props.children}
      <ul class="checks">
        {props.checks.map((c) => (
          <li key={`${c.name}:${c.detail}`}>
            <StatusBadge status={c.status} /> <strong>{c.name}</strong>: {c.detail}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Report({ report }: { report: StatusReport }) {
  const { database, delivery, providers, tls, signing_keys: keys } = report;
  return (
    <>
      <p role="status" data-testid="status-summary">
        <StatusBadge status={report.status} /> {SUMMARY[report.status]} Checked{' '}
        {new Date(report.checked_at).toLocaleString()}.
      </p>
      <Part id="database" title="Database" status={database.status} checks={database.checks}>
        <Facts
          items={[
            ['Reachable', database.reachable ? 'Yes' : 'No'],
            ['Location', <code key="l">{database.location}</code>],
            ['PostgreSQL', database.server_version ?? 'unknown'],
            [
              'Migrations',
              database.migrations
                ? database.migrations.pending.length === 0
                  ? `all ${database.migrations.known} applied`
                  : `${database.migrations.pending.length} pending: ${database.migrations.pending.join(', ')}`
                : 'unknown',
            ],
          ]}
        />
      </Part>
      <Part id="delivery" title="Verification delivery" status={delivery.status} checks={delivery.checks}>
        <Facts
          items={[
            ['Kind', delivery.kind],
            ['State', DELIVERY_STATES[delivery.state]],
            ['Why', delivery.reason],
          ]}
        />
      </Part>
      <Part id="providers" title="Sign-in providers" status={providers.status} checks={[]}>
        <table>
          <caption>
            {providers.providers.filter((p) => p.state !== 'off').length} of 9 providers enabled or deferred
          </caption>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">State</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {providers.providers.map((p) => (
              <tr key={p.id}>
                <td>{p.id}</td>
                <td>{PROVIDER_STATES[p.state]}</td>
                <td>{p.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Part>
      <Part id="tls" title="TLS" status={tls.status} checks={tls.checks}>
        <Facts
          items={[
            ['Mode', tls.mode],
            ...(tls.certificate
              ? ([
                  ['Certificate', tls.certificate.subject],
                  ['Issued by', tls.certificate.issuer],
                  ['Expires', `${day(tls.certificate.not_after)} (${tls.certificate.days_left} days left)`],
                ] as [string, string][])
              : []),
            ...(tls.acme
              ? ([
                  ['Domain', tls.acme.domain],
                  ['ACME directory', tls.acme.directory_url],
                ] as [string, string][])
              : []),
          ]}
        />
      </Part>
      <Part id="keys" title="Signing keys" status={keys.status} checks={keys.checks}>
        {keys.keys.length > 0 && (
          <table>
            <caption>Published OIDC signing keys</caption>
            <thead>
              <tr>
                <th scope="col">Key ID (kid)</th>
                <th scope="col">Created</th>
                <th scope="col">Retired</th>
                <th scope="col">Signs new tokens</th>
              </tr>
            </thead>
            <tbody>
              {keys.keys.map((k) => (
                <tr key={k.kid}>
                  <td>
                    <code>{k.kid}</code>
                  </td>
                  <td>{k.created_at ? day(k.created_at) : 'initial key (secrets directory)'}</td>
                  <td>{k.retired_at ? day(k.retired_at) : '—'}</td>
                  <td>{k.signing ? 'Yes' : 'No'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Part>
    </>
  );
}

export function Status() {
  const status = useApi<StatusReport>('/admin/status');
  return (
    <ConsoleLayout section="status" title="Status" access={status.error}>
      <p class="hint">
        What <code>gatehouse doctor</code> reports: the database, verification delivery, sign-in providers, TLS and the
        signing keys. Statuses read {Object.values(STATUS_WORDS).join(', ')}.
      </p>
      <button type="button" class="secondary" onClick={status.reload} disabled={status.loading}>
        Check again
      </button>
      {status.loading && (
        <p class="loading" role="status">
          Checking… the delivery check contacts the relay or webhook and can take up to 10 seconds.
        </p>
      )}
      <ErrorNotice error={status.error} />
      {status.data && !status.loading && <Report report={status.data} />}
    </ConsoleLayout>
  );
}
