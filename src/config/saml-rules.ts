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
    const direct = [
      connection.idp_entity_id !== '',
      connection.idp_sso_url !== '',
      connection.idp_certificate_files.length > 0,
    ];
    const file = connection.idp_metadata_file !== '';
    const url = connection.idp_metadata_url !== '';
    if (file && url)
      problems.push({ key: `${key}.idp_metadata_url`, problem: 'set it or idp_metadata_file, not both' });
    else if ((file || url) && direct.some(Boolean))
      problems.push({
        key: `${key}.${file ? 'idp_metadata_file' : 'idp_metadata_url'}`,
        problem: 'set it or idp_entity_id, idp_sso_url and idp_certificate_files, not both',
      });
    else if (!file && !url && !direct.every(Boolean))
      problems.push({
        key: key,
        problem:
          'needs idp_metadata_file, idp_metadata_url, or all of idp_entity_id, idp_sso_url and idp_certificate_files',
      });
    const metadataUrlProblem = url ? ssoUrlProblem(connection.idp_metadata_url) : null;
    if (metadataUrlProblem) problems.push({ key: `${key}.idp_metadata_url`, problem: metadataUrlProblem });
    const ssoProblem = connection.idp_sso_url === '' ? null : ssoUrlProblem(connection.idp_sso_url);
    if (ssoProblem) problems.push({ key: `${key}.idp_sso_url`, problem: ssoProblem });
    for (const domain of connection.email_domains) {
      const other = owners.get(domain);
      if (other) problems.push({ key: `${key}.email_domains`, problem: `${domain} already belongs to ${other}` });
      else owners.set(domain, key);
    }
  }
  return problems;
}

/**
 * The AuthnRequest travels in the URL, and metadata fetched from a URL decides which keys are trusted: https, except
 * to this very machine. Also used for metadata-given URLs.
 */
export function ssoUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an https:// URL';
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return null;
  return 'must be https:// (http:// only for a loopback host)';
}
