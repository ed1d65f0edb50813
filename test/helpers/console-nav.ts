// Going to a console section the way a person does at any width: on a phone the sections sit behind the header's
// "Menu" button (web/src/pages/console/ConsoleHeader.tsx), which is opened first when it is shown and closed.
import type { Page } from 'playwright-core';

export async function openConsoleSection(page: Page, name: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  if ((await menu.isVisible()) && (await menu.getAttribute('aria-expanded')) !== 'true') await menu.click();
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name, exact: true }).click();
}
