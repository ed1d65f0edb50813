// `gatehouse doctor` lines for `[saml.<id>]`: the service provider key and certificate load and belong together,
// and no certificate involved (ours, the identity provider's) has expired or expires within 30 days. Signature
// checks (node-saml, xml-crypto) ignore certificate dates, so an expiring IdP certificate breaks nothing by itself;
// it says the identity provider will roll its key over, and the new certificate must be listed here before then.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Config } from '../../config/schema.ts';
import { type Check, check } from '../../delivery/check.ts';
import { loadSamlConnection } from './connection.ts';

const DAY_MS = 86_400_000;
const WARN_DAYS = 30;

export function samlConnectionChecks(config: Config, now: Date): Check[] {
  return Object.keys(config.saml).map((id) => {
    const name = `saml.${id}`;
    try {
      const connection = loadSamlConnection(config, id);
      const spCertificate = new X509Certificate(connection.spCertificate);
      if (!spCertificate.checkPrivateKey(createPrivateKey(connection.spKey)))
        return check('fail', name, `saml-${id}.key and saml-${id}.crt in secrets.dir are not one key pair`);
      const certificates = [
        { what: `service provider certificate saml-${id}.crt`, certificate: spCertificate },
        ...connection.idpCertificates.map((pem, i) => ({
          what: `identity provider certificate ${i + 1}`,
          certificate: new X509Certificate(pem),
        })),
      ];
      const expiring = certificates.map(({ what, certificate }) => {
        const days = Math.floor((Date.parse(certificate.validTo) - now.getTime()) / DAY_MS);
        return { what, days };
      });
      const expired = expiring.filter((c) => c.days < 0);
      if (expired.length > 0)
        return check('fail', name, expired.map((c) => `${c.what} expired ${-c.days} days ago`).join('; '));
      const soon = expiring.filter((c) => c.days < WARN_DAYS);
      if (soon.length > 0)
        return check('warn', name, soon.map((c) => `${c.what} expires in ${c.days} days`).join('; '));
      const first = Math.min(...expiring.map((c) => c.days));
      // The identity provider's certificates of an idp_metadata_url connection are fetched by the server, not here.
      const byUrl =
        connection.config.idp_metadata_url === '' ? '' : '; identity provider metadata URL not fetched here';
      return check('ok', name, `keys load; certificates valid for at least ${first} more days${byUrl}`);
    } catch (error) {
      return check('fail', name, (error as Error).message);
    }
  });
}
