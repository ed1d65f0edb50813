// Screenshots for a person to look at after a run, in the git-ignored folder test/web/screenshots.test.ts uses.
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';

const SHOTS = new URL('../../test-artifacts/screenshots/', import.meta.url);

/** Saves the whole page as test-artifacts/screenshots/<name>.png. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name.replace(/[^a-z0-9-]+/gi, '-')}.png`, SHOTS).pathname, fullPage: true });
}

/** Elements reaching past the right edge of a `width`-px viewport (the page then scrolls sideways), and the page width. */
export async function overflowAt(page: Page, width: number): Promise<{ page: number; wide: string[] }> {
  return page.evaluate((edge) => {
    const wide = [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((e) => e.getBoundingClientRect().right > edge + 0.5 && !e.closest('.visually-hidden'))
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
    return { page: document.documentElement.scrollWidth, wide };
  }, width);
}
