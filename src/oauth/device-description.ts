// Which kind of device asks, in words a person recognises on the /device page: ua-parser-js 1.x (MIT; 2.x is AGPL)
// reads the User-Agent the device-authorization request carried (through src/session/device.ts, which loads it on
// first use). A command-line tool's User-Agent ("gh/2.40", "curl/8.5.0") names no browser, so its first product token is shown as it is. The header is whatever the device
// says: the page presents it as what the device claims, never as proof (docs/oauth.md "Device authorization grant").
import { userAgentWords } from '../session/device.ts';

/** ua-parser-js's device types, and `computer` for a browser or system without one, `unknown` for nothing known. */
export const DEVICE_KINDS = [
  'computer',
  'mobile',
  'tablet',
  'smarttv',
  'console',
  'wearable',
  'embedded',
  'xr',
  'unknown',
] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

export interface DeviceDescription {
  kind: DeviceKind;
  /** "Chrome 131 on Linux", "Samsung SM-T970, Android 14", "gatehouse-device-cli/1.0", or null. */
  name: string | null;
}

/** Longest User-Agent stored with a device code: enough for any real one, bounded all the same. */
export const MAX_USER_AGENT = 512;
const PRODUCT = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,40}(?:\/[A-Za-z0-9._+-]{1,20})?/;

export function describeDeviceOf(userAgent: string | null): DeviceDescription {
  if (!userAgent) return { kind: 'unknown', name: null };
  const { browser: name, where, type } = userAgentWords(userAgent);
  const known = (DEVICE_KINDS as readonly string[]).includes(type ?? '');
  const kind: DeviceKind = known ? (type as DeviceKind) : name || where ? 'computer' : 'unknown';
  if (name && where) return { kind, name: `${name} on ${where}` };
  if (name || where) return { kind, name: name ?? where };
  return { kind, name: userAgent.match(PRODUCT)?.[0] ?? null };
}
