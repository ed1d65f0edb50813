// The application a browser test signs in to: its redirect URI, and the moment the browser arrives there (the
// request is answered in the browser, so no server has to listen for it).
import type { Page } from 'playwright-core';

export const APPLICATION_CALLBACK = 'https://app.acme-robotics.dev/callback';

/** Resolves with the URL the browser was sent to at the application (code, state, iss or an error). */
export function applicationArrival(page: Page): Promise<URL> {
  return new Promise<URL>((resolve) => {
    void page.route('https://app.acme-robotics.dev/**', (route) => {
      resolve(new URL(route.request().url()));
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'the application' });
    });
  });
}
