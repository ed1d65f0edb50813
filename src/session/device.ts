// A session's browser and system in words ("Firefox 128 on Ubuntu"), so a person can tell their devices apart in
// the list of where they are signed in. ua-parser-js 1.x (MIT; 2.x is AGPL) reads the User-Agent header stored
// with the session; only major versions are shown, which is what a person recognises.
import { createRequire } from 'node:module';
import type * as UaParser from 'ua-parser-js';

// Loaded when a session list is first shown (the account page's "where you are signed in"), not at start: a node
// serving tokens never needs it. Its CommonJS build keeps describeDevice synchronous.
const require = createRequire(import.meta.url);
let parser: typeof UaParser.UAParser | null = null;
const uaParser = () => {
  parser ??= (require('ua-parser-js') as typeof UaParser).UAParser;
  return parser;
};

export function describeDevice(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const { browser, os, device } = new (uaParser())(userAgent).getResult();
  const name = browser.name ? [browser.name, browser.version?.split('.')[0]].filter(Boolean).join(' ') : null;
  const system = os.name ? [os.name, os.version].filter(Boolean).join(' ') : null;
  const model = device.model && device.vendor ? `${device.vendor} ${device.model}` : null;
  const where = [model, system].filter(Boolean).join(', ');
  if (name && where) return `${name} on ${where}`;
  return name ?? (where || null);
}
