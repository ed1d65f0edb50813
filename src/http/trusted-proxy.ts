// Trusted-proxy mode (SPEC.md Authentication 10): the loopback listener sits behind a reverse proxy that overwrites
// X-Forwarded-For with exactly one validated client IP. A request without exactly one valid address did not come
// through that proxy (or the proxy is misconfigured), so it is refused before any route sees it.
import { isIP } from 'node:net';
import { GatehouseError } from './errors.ts';

/** The single client address in an X-Forwarded-For header, or null when there is not exactly one valid one. */
export function singleForwardedAddress(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  // Node joins repeated header lines with ", "; either way more than one value is a refusal.
  const joined = Array.isArray(header) ? header.join(',') : header;
  const values = joined.split(',').map((v) => v.trim());
  if (values.length !== 1 || !values[0]) return null;
  return isIP(values[0]) === 0 ? null : values[0];
}

export function requireForwardedAddress(header: string | string[] | undefined): string {
  const address = singleForwardedAddress(header);
  if (address === null) throw new GatehouseError('invalid_forwarded_for');
  return address;
}
