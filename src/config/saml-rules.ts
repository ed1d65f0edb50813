// Rules for `[saml.<id>]` the schema cannot express: the AuthnRequest travels to an https single sign-on URL (http
// only to this machine), and each email domain routes to exactly one place, a SAML connection or an LDAP directory.
import type { Config } from './schema.ts';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function samlProblems(config: Config): { key: string; problem: string }[] {
  const problems: { key: string; problem: string }[] = [];
  const owners = new Map<string, string>();
  for (const [id, directory] of Object.entries(config.ldap))
    for (const domain of directory.email_domains) owners.set(domain, `ldap.${id}`);
  for (const [id, connection] of Object.entries(config.saml)) {
    const key = `saml.${id}`;
    let url: URL | null = null;
    try {
      url = new URL(connection.idp_sso_url);
    } catch {
      problems.push({ key: `${key}.idp_sso_url`, problem: 'must be an https:// URL' });
    }
    if (url?.protocol === 'http:' && !LOOPBACK.has(url.hostname))
      problems.push({ key: `${key}.idp_sso_url`, problem: 'must be https:// (http:// only for a loopback host)' });
    for (const domain of connection.email_domains) {
      const other = owners.get(domain);
      if (other) problems.push({ key: `${key}.email_domains`, problem: `${domain} already belongs to ${other}` });
      else owners.set(domain, key);
    }
  }
  return problems;
}
