// Serves the oidc-client-ts test's single-page app from its own origin: main.ts bundled with Vite (test/sdk/bundle.ts), and one HTML page for every path that carries the Gatehouse issuer and client id.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { bundle } from '../../sdk/bundle.ts';

const escapeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export interface SpaSettings {
  issuer: string;
  clientId: string;
}

/**
 * Starts the app on localhost (another origin than the issuer's 127.0.0.1) and returns its origin. The settings are
 * read per page, so the client can be registered with the redirect URI this origin gives.
 */
export async function startSpa(settings: () => SpaSettings): Promise<string> {
  const script = await bundle(new URL('./main.ts', import.meta.url).pathname, false);
  const page = () =>
    '<!doctype html><html><head><meta charset="utf-8"><title>SPA</title></head><body>' +
    `<script type="application/json" id="config">${escapeJson(settings())}</script>` +
    '<pre id="result"></pre><script type="module" src="/app.js"></script></body></html>';
  const server = createServer((request, response) => {
    const isScript = request.url === '/app.js';
    response.writeHead(200, { 'content-type': isScript ? 'text/javascript' : 'text/html; charset=utf-8' });
    response.end(isScript ? script : page());
  });
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  after(() => new Promise((resolve) => server.close(resolve)));
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}
