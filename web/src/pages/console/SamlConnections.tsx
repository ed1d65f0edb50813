import { LoadState } from '../../components/Loading.tsx';
import { useApi } from '../../hooks/use-api.ts';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { StatusBadge } from './StatusBadge.tsx';

interface CertificateView {
  role: 'service_provider' | 'identity_provider';
  subject: string;
  expires_at: string;
}

interface SamlConnectionView {
  id: string;
  name: string;
  idp_entity_id: string;
  idp_sso_url: string;
  email_domains: string[];
  sign_up: boolean;
  mfa_authn_contexts: string[];
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

function Connection({ c }: { c: SamlConnectionView }) {
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
    </section>
  );
}

/** The configured SAML connections, read-only: they are set in the configuration file, as the page says. */
export function SamlConnections() {
  const list = useApi<{ connections: SamlConnectionView[] }>('/admin/saml-connections');
  return (
    <ConsoleLayout section="single-sign-on" title="Single sign-on" access={list.error}>
      <p class="aside">
        SAML connections are configured in the configuration file, one <code>[saml.&lt;id&gt;]</code> table each, with
        the service provider key pair in <code>saml-&lt;id&gt;.key</code> and <code>saml-&lt;id&gt;.crt</code> in the
        secrets directory; changes take effect when Gatehouse restarts. <code>gatehouse doctor</code> checks the keys
        and certificate expiry.
      </p>
      <LoadState loading={list.loading} error={list.error} />
      {list.data?.connections.length === 0 && <p class="empty">No SAML connections are configured.</p>}
      {list.data?.connections.map((c) => (
        <Connection key={c.id} c={c} />
      ))}
    </ConsoleLayout>
  );
}
