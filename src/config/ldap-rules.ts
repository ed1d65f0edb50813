// Rules for `[ldap.<id>]` the schema cannot express: every password crosses TLS (RFC 4513 §3: ldaps:// or StartTLS)
// unless plain LDAP to this very machine was allowed by name, and each email domain routes to one directory.
import type { Config } from './schema.ts';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export function ldapProblems(config: Config): { key: string; problem: string }[] {
  const problems: { key: string; problem: string }[] = [];
  const owners = new Map<string, string>();
  for (const [id, directory] of Object.entries(config.ldap)) {
    const key = `ldap.${id}`;
    let url: URL | null = null;
    try {
      url = new URL(directory.url);
    } catch {
      problems.push({ key: `${key}.url`, problem: 'must be an ldaps:// or ldap:// URL' });
    }
    if (url?.protocol === 'ldaps:' && directory.start_tls)
      problems.push({ key: `${key}.start_tls`, problem: 'must be false with ldaps:// (TLS is already on)' });
    if (url?.protocol === 'ldap:' && !directory.start_tls) {
      if (!directory.allow_plain_loopback)
        problems.push({
          key: `${key}.url`,
          problem: 'ldap:// sends passwords in the clear: use ldaps://, or set start_tls = true',
        });
      else if (!LOOPBACK.has(url.hostname))
        problems.push({ key: `${key}.allow_plain_loopback`, problem: 'only covers 127.0.0.1, ::1 and localhost' });
    }
    if (directory.group_roles.length > 0 && directory.group_search_base === '')
      problems.push({ key: `${key}.group_roles`, problem: 'needs group_search_base (no groups found, no roles)' });
    for (const domain of directory.email_domains) {
      const other = owners.get(domain);
      if (other) problems.push({ key: `${key}.email_domains`, problem: `${domain} already belongs to ldap.${other}` });
      else owners.set(domain, id);
    }
  }
  return problems;
}
