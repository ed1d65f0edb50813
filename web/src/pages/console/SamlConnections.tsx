import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { AddSamlConnection } from './AddSamlConnection.tsx';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { RefreshSamlMetadata } from './RefreshSamlMetadata.tsx';
import { StatusBadge } from './StatusBadge.tsx';

interface CertificateView {
  role: 'service_provider' | 'identity_provider';
  subject: string;
  expires_at: string;
}

interface SamlConnectionView {
  id: string;
  source: 'config' | 'api';
  name: string;
  idp_entity_id: string;
  idp_sso_url: string;
  email_domains: string[];
  sign_up: boolean;
  mfa_authn_contexts: string[];
  email_attribute: string;
  display_name_attribute: string;
  idp_metadata_url: string;
  sp_entity_id: string;
  acs_url: string;
  metadata_url: string;
  certificates: CertificateView[];
}

const ROLE = {
  service_provider: 'Gatehouse (signing and encryption)',
  identity_provider: 'Identity provider (signing)',
};
const DAY_MS = 86_400_000;

function Expiry({ iso }: { iso: string }) {
  const days = Math.floor((Date.parse(iso) - Date.now()) / DAY_MS);
  const date = new Date(iso).toLocaleDateString();
  if (days < 0)
    return (
      <>
        <StatusBadge status="fail" /> expired {date}
      </>
    );
  if (days < 30)
    return (
      <>
        <StatusBadge status="warn" /> expires {date} (in {days} days)
      </>
    );
  return <>expires {date}</>;
}

/** Delete, for a connection made here; asks once more, since people signing in through it lose that way in. */
function DeleteConnection({ c, onDeleted }: { c: SamlConnectionView; onDeleted: (name: string) => void }) {
  const action = useAction();
  const [asking, setAsking] = useState(false);
  const remove = async () => {
    const done = await action.run(async () => {
      await api('DELETE', `/admin/saml-connections/${encodeURIComponent(c.id)}`, {});
      return true;
    });
    if (done) onDeleted(c.name);
  };
  return (
    <div class="actions">
      <ErrorNotice error={action.error} />
      {asking ? (
        <>
          <p>People who sign in through {c.name} will no longer be able to. Delete it?</p>
          <button type="button" class="secondary" disabled={action.busy} onClick={() => void remove()}>
            Delete {c.name} for good
          </button>
          <button type="button" onClick={() => setAsking(false)}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" class="secondary" aria-label={`Delete ${c.name}`} onClick={() => setAsking(true)}>
          Delete
        </button>
      )}
    </div>
  );
}

function Connection({ c, onChanged }: { c: SamlConnectionView; onChanged: (what: string) => void }) {
  return (
    <section class="panel" aria-labelledby={`saml-${c.id}`}>
      <h2 id={`saml-${c.id}`}>
        {c.name} <code>{c.id}</code>
      </h2>
      <h3>For the identity provider's administrator</h3>
      <dl class="status-facts">
        <div>
          <dt>Metadata URL</dt>
          <dd>
            <a href={c.metadata_url}>{c.metadata_url}</a>
          </dd>
        </div>
        <div>
          <dt>Entity ID</dt>
          <dd>
            <code>{c.sp_entity_id}</code>
          </dd>
        </div>
        <div>
          <dt>Assertion consumer service (HTTP-POST)</dt>
          <dd>
            <code>{c.acs_url}</code>
          </dd>
        </div>
      </dl>
      <h3>How it signs people in</h3>
      <dl class="status-facts">
        <div>
          <dt>Identity provider</dt>
          <dd>
            <code>{c.idp_entity_id}</code> at <code>{c.idp_sso_url}</code>
            {c.idp_metadata_url && (
              <>
                {' '}
                (metadata from <code>{c.idp_metadata_url}</code>)
              </>
            )}
          </dd>
        </div>
        <div>
          <dt>Attributes read</dt>
          <dd>
            email from <code>{c.email_attribute}</code>, name from <code>{c.display_name_attribute}</code>
          </dd>
        </div>
        <div>
          <dt>Email domains sent here</dt>
          <dd>{c.email_domains.join(', ')}</dd>
        </div>
        <div>
          <dt>New people</dt>
          <dd>{c.sign_up ? 'get an account at their first sign-in' : 'are refused unless already linked'}</dd>
        </div>
        <div>
          <dt>Identity provider MFA</dt>
          <dd>
            {c.mfa_authn_contexts.length === 0
              ? 'never counts: every sign-in here is single-factor (aal1)'
              : `counts (aal2) when the AuthnContext is ${c.mfa_authn_contexts.join(' or ')}`}
          </dd>
        </div>
      </dl>
      <h3>Certificates</h3>
      <ul class="checks">
        {c.certificates.map((cert) => (
          <li key={`${cert.role}:${cert.subject}:${cert.expires_at}`}>
            {ROLE[cert.role]}: {cert.subject}, <Expiry iso={cert.expires_at} />
          </li>
        ))}
      </ul>
      {c.idp_metadata_url && <RefreshSamlMetadata c={c} onRefreshed={onChanged} />}
      {c.source === 'api' ? (
        <DeleteConnection c={c} onDeleted={(name) => onChanged(`Deleted ${name}.`)} />
      ) : (
        <p class="aside">
          From the configuration file (<code>[saml.{c.id}]</code>): change or remove it there.
        </p>
      )}
    </section>
  );
}

/** Every SAML connection: those of the configuration file (read-only here) and those added on this page. */
export function SamlConnections() {
  const list = useApi<{ connections: SamlConnectionView[] }>('/admin/saml-connections');
  const [done, setDone] = useState<string | null>(null);
  const changed = (what: string) => {
    setDone(what);
    list.reload();
  };
  return (
    <ConsoleLayout section="single-sign-on" title="Single sign-on" access={list.error}>
      <p class="aside">
        A SAML connection is added here, or in the configuration file as a <code>[saml.&lt;id&gt;]</code> table with the
        service provider key pair in <code>saml-&lt;id&gt;.key</code> and <code>saml-&lt;id&gt;.crt</code> in the
        secrets directory (those take effect when Gatehouse restarts, and <code>gatehouse doctor</code> checks their
        keys). One added here takes effect at once, with a key pair Gatehouse makes.
      </p>
      {done && (
        <p class="notice notice-done" role="status">
          {done}
        </p>
      )}
      <LoadState loading={list.loading} error={list.error} />
      {list.data?.connections.length === 0 && <p class="empty">No SAML connections yet.</p>}
      {list.data?.connections.map((c) => (
        <Connection key={c.id} c={c} onChanged={changed} />
      ))}
      {list.data && <AddSamlConnection onAdded={(name) => changed(`Added ${name}.`)} />}
    </ConsoleLayout>
  );
}
