// A listening app whose configured issuer is its own loopback URL, so real OAuth clients can discover and talk to
// it, and a minimal "browser": follows the authorization request with the session cookie and returns Location.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { startTestApp, type TestApp } from './app.ts';
import { makeConfig } from './config.ts';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startListeningIssuer(
  overrides: Omit<Parameters<typeof makeConfig>[0], 'server'> = {},
): Promise<TestApp & { issuer: string }> {
  // The issuer names its port before the app listens, and another process (a parallel test file) may take a free
  // port in between: CI once failed with EADDRINUSE here. A taken port is tried again with another, on the same
  // database; the app that could not listen is closed by startTestApp's own after hook.
  let sql: TestApp['sql'] | undefined;
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const t = await startTestApp({ config: makeConfig({ ...overrides, server: { issuer } }), ...(sql ? { sql } : {}) });
    sql = t.sql;
    try {
      await t.app.listen({ host: '127.0.0.1', port });
      return { ...t, url: issuer, issuer };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) throw error;
    }
  }
}

/** What a browser with this session cookie would be redirected to. */
export async function browse(url: string | URL, cookie: string): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual', headers: { cookie } });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location)
    throw new Error(`expected a redirect, got ${response.status}: ${await response.text()}`);
  return new URL(location, url);
}

/** Asserts the whole error envelope of a fetched answer: status, code, description and the request id. */
export async function assertFetchedEnvelope(response: Response, status: number, error: string, description: string) {
  assert.equal(response.status, status);
  assert.deepEqual(await response.json(), {
    error,
    error_description: description,
    request_id: response.headers.get('x-request-id'),
  });
}
