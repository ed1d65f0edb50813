// An app whose issuer is its real loopback origin, as a browser sees it: the CSRF rule compares Origin with it.
import { createServer } from 'node:net';
import type { Config } from '../../src/config/schema.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './app.ts';

export async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startBrowserApp(
  config: Config,
  options: Omit<TestAppOptions, 'config' | 'listen' | 'port'> & {
    /** `localhost` where a page needs a domain origin (WebAuthn refuses an IP address as RP ID). */
    issuerHost?: 'localhost' | '127.0.0.1';
  } = {},
): Promise<TestApp> {
  const port = await freePort();
  const issuer = `http://${options.issuerHost ?? '127.0.0.1'}:${port}`;
  const { issuerHost: _host, ...rest } = options;
  const started = await startTestApp({
    ...rest,
    config: { ...config, server: { ...config.server, issuer } },
    listen: true,
    port,
  });
  // Pages are opened at the issuer's origin, which the CSRF rule and WebAuthn compare with.
  return { ...started, url: issuer };
}
