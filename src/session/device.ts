// A session's browser and system in words ("Firefox 128 on Ubuntu"), so a person can tell their devices apart in
// the list of where they are signed in. ua-parser-js 1.x (MIT; 2.x is AGPL) reads the User-Agent header stored
// with the session; only major versions are shown, which is what a person recognises.
import { UAParser } from 'ua-parser-js';

export function describeDevice(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const { browser, os, device } = new UAParser(userAgent).getResult();
  const name = browser.name ? [browser.name, browser.version?.split('.')[0]].filter(Boolean).join(' ') : null;
  const system = os.name ? [os.name, os.version].filter(Boolean).join(' ') : null;
  const model = device.model && device.vendor ? `${device.vendor} ${device.model}` : null;
  const where = [model, system].filter(Boolean).join(', ');
  if (name && where) return `${name} on ${where}`;
  return name ?? (where || null);
}
