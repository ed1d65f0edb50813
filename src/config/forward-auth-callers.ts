// gateway.forward_auth_callers (the configuration's rule, which the forward-auth endpoint also reads): the proxies
// allowed to ask the forward-auth endpoint (docs/gateway.md "Forward auth"). Compared with the connection's peer
// address, never a header: the answer carries who a token belongs to, and X-Forwarded-For is whatever the caller wrote.
import { BlockList, isIP } from 'node:net';

/** Why a gateway.forward_auth_callers entry is not an address or CIDR block, or null when it is one. */
export function callerProblem(entry: string): string | null {
  const [address = '', bits, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return 'must be an IP address or a CIDR block, e.g. 10.0.0.0/8 or ::1/128';
  if (bits === undefined) return null;
  const prefix = Number(bits);
  if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128))
    return `has a prefix length outside 0-${family === 4 ? 32 : 128}`;
  return null;
}

/** IPv4 peers of a dual-stack listener arrive as ::ffff:a.b.c.d; they are judged as the IPv4 address they are. */
const unmapped = (address: string) =>
  address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;

/** Whether a peer address is one of `entries` (validated by callerProblem at startup). */
export function trustedCallers(entries: readonly string[]): (peer: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const type = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (peer) => {
    if (peer === undefined) return false;
    const address = unmapped(peer);
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}
