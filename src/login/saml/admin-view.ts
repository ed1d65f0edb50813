// What the console shows of a SAML connection: everything the identity provider's administrator needs to set up
// their side (entity id, ACS, metadata URL) and what the owner should watch (domains, sign-up, MFA rule,
// certificate expiry), and where it comes from: `[saml.<id>]` of the configuration file (read-only) or the admin API.
import { X509Certificate } from 'node:crypto';
import type { SamlConnection } from './connection.ts';

export interface CertificateView {
  role: 'service_provider' | 'identity_provider';
  subject: string;
  expires_at: string;
}

export interface SamlConnectionView {
  id: string;
  /** config: `[saml.<id>]`, read-only in the API; api: made (and changeable) through the admin API. */
  source: 'config' | 'api';
  name: string;
  idp_entity_id: string;
  idp_sso_url: string;
  email_domains: string[];
  sign_up: boolean;
  mfa_authn_contexts: string[];
  email_attribute: string;
  display_name_attribute: string;
  /** Where the identity provider's metadata is fetched from; empty when it was given as a document or fields. */
  idp_metadata_url: string;
  sp_entity_id: string;
  acs_url: string;
  metadata_url: string;
  certificates: CertificateView[];
}

const certificateView = (role: CertificateView['role'], pem: string): CertificateView => {
  const certificate = new X509Certificate(pem);
  return { role, subject: certificate.subject, expires_at: new Date(certificate.validTo).toISOString() };
};

export function connectionView(connection: SamlConnection): SamlConnectionView {
  const { config } = connection;
  return {
    id: connection.id,
    source: connection.source,
    name: config.name,
    idp_entity_id: connection.idpEntityId,
    idp_sso_url: connection.idpSsoUrl,
    email_domains: config.email_domains,
    sign_up: config.sign_up,
    mfa_authn_contexts: config.mfa_authn_contexts,
    email_attribute: config.email_attribute,
    display_name_attribute: config.display_name_attribute,
    idp_metadata_url: config.idp_metadata_url,
    sp_entity_id: connection.entityId,
    acs_url: connection.acsUrl,
    // The entity id is the metadata URL (connection.ts), so the two are the same address.
    metadata_url: connection.entityId,
    certificates: [
      certificateView('service_provider', connection.spCertificate),
      ...connection.idpCertificates.map((pem) => certificateView('identity_provider', pem)),
    ],
  };
}
