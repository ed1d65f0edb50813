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

/** What a User-Agent says, in the words both the session list and the /device page show. */
export interface UserAgentWords {
  /** "Firefox 128", or null when no browser is named. */
  browser: string | null;
  /** "Samsung SM-T970, Android 14", "Ubuntu", or "" when neither a model nor a system is named. */
  where: string;
  /** ua-parser-js's device type ("mobile", "smarttv", …), undefined for a computer or nothing known. */
  type: string | undefined;
}

export function userAgentWords(userAgent: string): UserAgentWords {
  const { browser, os, device } = new (uaParser())(userAgent).getResult();
  const name = browser.name ? [browser.name, browser.version?.split('.')[0]].filter(Boolean).join(' ') : null;
  const system = os.name ? [os.name, os.version].filter(Boolean).join(' ') : null;
  const model = device.model && device.vendor ? `${device.vendor} ${device.model}` : null;
  return { browser: name, where: [model, system].filter(Boolean).join(', '), type: device.type };
}

export function describeDevice(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const { browser, where } = userAgentWords(userAgent);
  if (browser && where) return `${browser} on ${where}`;
  return browser ?? (where || null);
}
