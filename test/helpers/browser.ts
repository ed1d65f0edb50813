// A real browser for UI tests: Debian's Chromium driven by playwright-core (never a downloaded browser).
// Every test page records console errors and CSP violations, and saves a screenshot to test-artifacts/.
import { mkdirSync } from 'node:fs';
import { after } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM } from './chromium.ts';

export { CHROMIUM };

const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);

let browser: Browser | null = null;

/** Paths of Gatehouse's JSON API, which the pages call with fetch. */
const API_PATH = /^\/(auth|account|admin|oauth)\//;

export async function launchBrowser(): Promise<Browser> {
  if (!browser) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-quic',
        '--no-first-run',
        '--disable-sync',
      ],
    });
    after(async () => {
      await browser?.close();
      browser = null;
    });
  }
  return browser;
}

export interface TestPage {
  page: Page;
  /** Console errors and CSP violations seen so far. */
  problems: string[];
  screenshot(name: string): Promise<void>;
}

/** `locale` sets the browser's language (navigator.language and Accept-Language); `acceptLanguage` the exact header. */
export async function newPage(
  viewport = { width: 1024, height: 768 },
  language: { locale?: string; acceptLanguage?: string } = {},
): Promise<TestPage> {
  const context = await (await launchBrowser()).newContext({
    viewport,
    ...(language.locale ? { locale: language.locale } : {}),
    ...(language.acceptLanguage ? { extraHTTPHeaders: { 'accept-language': language.acceptLanguage } } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // Chromium logs every 4xx answer as a console error. A 4xx envelope from the API is an outcome the page shows
    // (wrong password, expired link), so it is not a problem; a 4xx for a page asset or anything else still is.
    const expected =
      /^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text()) &&
      API_PATH.test(new URL(message.location().url || 'about:blank').pathname);
    if (!expected) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  after(() => context.close());
  return {
    page,
    problems,
    async screenshot(name) {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({
        path: new URL(`${name.replace(/[^a-z0-9-]+/gi, '-')}.png`, ARTIFACTS).pathname,
        fullPage: true,
      });
    },
  };
}
