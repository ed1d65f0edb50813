// Where keyboard focus is, for accessibility tests: what a keyboard or screen-reader user is on. The page functions
// are strings or typed by hand because the tests are type-checked without the DOM library.
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';

/** What the focus check needs of an element inside the page. */
interface PageElement {
  ownerDocument: { activeElement: unknown };
}

/** The focused element, described by its id, else its text, else its tag. */
export async function focusedElement(page: Page): Promise<string> {
  return String(
    await page.evaluate(`(() => {
      const active = document.activeElement;
      return active?.id || active?.textContent?.trim() || active?.tagName || '';
    })()`),
  );
}

/**
 * Waits for `target` to have focus: pages move focus in an effect after the render that shows an outcome, so the
 * outcome can be visible a moment before it is focused. Fails naming the element that has focus instead.
 */
export async function assertFocused(page: Page, target: Locator, what: string) {
  const element = await target.elementHandle();
  const has = await page
    .waitForFunction((el: PageElement | null) => el?.ownerDocument.activeElement === el, element, { timeout: 5000 })
    .then(() => true)
    .catch(() => false);
  assert.ok(has, `focus should be on ${what}, but is on "${await focusedElement(page)}"`);
}
