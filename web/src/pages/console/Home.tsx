import { CopyButton } from '../../components/CopyButton.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useApi } from '../../hooks/use-api.ts';
import { ActivityOverview } from './ActivityOverview.tsx';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { snippetsFor, snippetValues } from './integration-snippets.ts';
import type { StatusReport } from './status-types.ts';
import type { Application, Client } from './types.ts';

interface Discovery {
  issuer: string;
  jwks_uri: string;
}

/** A value to paste somewhere, with its own copy button. */
function Value({ term, value }: { term: string; value: string }) {
  return (
    <div class="copy-value">
      <dt>{term}</dt>
      <dd>
        <code>{value}</code> <CopyButton text={value} label={term} />
      </dd>
    </div>
  );
}

interface Step {
  done: boolean;
  title: string;
  how: preact.ComponentChildren;
}

/** What a new organization sets up first, each item computed from the running instance. */
function Checklist({ steps }: { steps: Step[] }) {
  return (
    <ul class="checklist">
      {steps.map((s) => (
        <li key={s.title} data-done={s.done}>
          <strong>
            {s.done ? 'Done' : 'To do'}: {s.title}
          </strong>
          {!s.done && <p>{s.how}</p>}
        </li>
      ))}
    </ul>
  );
}

function ClientValues({ issuer, client }: { issuer: string; client: Client }) {
  const values = snippetValues(issuer, client);
  return (
    <section class="panel" aria-labelledby={`client-${client.client_id}`}>
      <h3 id={`client-${client.client_id}`}>
        {client.name} <span class="kind">({client.kind})</span>
      </h3>
      <dl class="copy-values">
        <Value term="Issuer" value={issuer} />
        <Value term="Client ID" value={client.client_id} />
        {client.redirect_uris.length > 0 && <Value term="Redirect URIs" value={client.redirect_uris.join(' ')} />}
        <Value term="Scopes" value={values.scope} />
      </dl>
      {client.kind !== 'service' &&
        snippetsFor(values, client.kind).map((s) => (
          <details key={s.library} class="snippet">
            <summary>{s.library}</summary>
            <CopyButton text={s.code} label={`${s.library} configuration for ${client.name}`} />
            <pre>
              <code>{s.code}</code>
            </pre>
          </details>
        ))}
    </section>
  );
}

/** The console's landing page: activity at a glance, the values an application needs, and what to set up next. */
export function Home() {
  const discovery = useApi<Discovery>('/.well-known/openid-configuration');
  const clients = useApi<{ clients: Client[] }>('/admin/clients?limit=100');
  const applications = useApi<{ applications: Application[] }>('/admin/applications?limit=1');
  const status = useApi<StatusReport>('/admin/status');
  const methods = useApi<{ self_service: boolean }>('/auth/providers');
  const issuer = discovery.data?.issuer ?? '';
  const steps: Step[] = [
    {
      done: status.data?.delivery.state === 'ready',
      title: 'Configure verification delivery',
      how: (
        <>
          Run <code>gatehouse config delivery</code> (SMTP relay, direct MX or webhook) so people can verify addresses
          and reset passwords.
        </>
      ),
    },
    {
      done: methods.data?.self_service === true,
      title: 'Decide on account self-service',
      how: (
        <>
          Set <code>enabled = true</code> under <code>[self_service]</code> to let people sign up and manage their own
          accounts (it also needs delivery).
        </>
      ),
    },
    {
      done: (applications.data?.applications.length ?? 0) > 0,
      title: 'Register your first application',
      how: <a href="/admin/console/applications">Add an application</a>,
    },
    {
      done: (clients.data?.clients.length ?? 0) > 0,
      title: 'Add a client for it',
      how: <a href="/admin/console/clients">Add a client</a>,
    },
    {
      done: status.data?.providers.providers.some((p) => p.state === 'enabled') ?? false,
      title: 'Offer other sign-in providers (optional)',
      how: (
        <>
          Run <code>gatehouse config providers</code> to add Google, GitHub, Microsoft and others.
        </>
      ),
    },
  ];
  return (
    <ConsoleLayout section="home" title="Overview" access={clients.error}>
      <ErrorNotice error={discovery.error ?? status.error} />
      <ActivityOverview />
      <section class="panel" aria-labelledby="endpoints-heading">
        <h2 id="endpoints-heading">Your identity provider</h2>
        {discovery.data && (
          <dl class="copy-values">
            <Value term="Issuer" value={issuer} />
            <Value term="Discovery" value={`${issuer}/.well-known/openid-configuration`} />
            <Value term="JWKS" value={discovery.data.jwks_uri} />
          </dl>
        )}
      </section>
      <section class="panel" aria-labelledby="checklist-heading">
        <h2 id="checklist-heading">Getting started</h2>
        {status.data && methods.data && applications.data && clients.data ? (
          <Checklist steps={steps} />
        ) : (
          <p class="hint">Checking…</p>
        )}
      </section>
      <section aria-labelledby="clients-heading">
        <h2 id="clients-heading">Connect your applications</h2>
        {clients.data?.clients.length === 0 && (
          <p class="empty">
            No clients yet. <a href="/admin/console/clients">Add a client</a> and its values appear here, ready to paste
            into your application.
          </p>
        )}
        {issuer && clients.data?.clients.map((c) => <ClientValues key={c.client_id} issuer={issuer} client={c} />)}
      </section>
    </ConsoleLayout>
  );
}
