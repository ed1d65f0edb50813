// How a directory connection carries passwords, decided once from `[ldap.<id>]` so the client and `gatehouse doctor`
// agree: TLS from the first byte (ldaps://), StartTLS on ldap:// (RFC 4513 §3), or plain LDAP to this machine, which
// config validation (src/config/ldap-rules.ts) allows only with allow_plain_loopback and a loopback host.
import type { Config } from '../../config/schema.ts';

export type DirectoryTransport = 'ldaps' | 'start_tls' | 'plain_loopback';

export function directoryTransport(config: Pick<Config['ldap'][string], 'url' | 'start_tls'>): DirectoryTransport {
  if (config.url.toLowerCase().startsWith('ldaps:')) return 'ldaps';
  return config.start_tls ? 'start_tls' : 'plain_loopback';
}

/** The words `gatehouse doctor` uses for each transport. */
export const transportWords: Record<DirectoryTransport, string> = {
  ldaps: 'over ldaps:// with TLS',
  start_tls: 'over ldap:// with StartTLS',
  plain_loopback: 'over plain ldap:// on loopback without TLS (allow_plain_loopback)',
};
