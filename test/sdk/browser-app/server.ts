// Serves the browser SDK test's page from its own origin (localhost, not the issuer's 127.0.0.1): main.ts bundled
// with Vite, and one HTML page for every path carrying the settings the test gives.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { bundle } from '../bundle.ts';

const escapeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** Starts the app and returns its origin; `settings` is read per page, once the client is registered. */
export async function startSdkApp(settings: () => unknown): Promise<string> {
  const script = await bundle(new URL('./main.ts', import.meta.url).pathname, false);
  const page = () =>
    '<!doctype html><html><head><meta charset="utf-8"><title>SDK</title></head><body>' +
    `<script type="application/json" id="config">${escapeJson(settings())}</script>` +
    '<script type="module" src="/app.js"></script></body></html>';
  const server = createServer((request, response) => {
    const isScript = request.url === '/app.js';
    response.writeHead(200, { 'content-type': isScript ? 'text/javascript' : 'text/html; charset=utf-8' });
    response.end(isScript ? script : page());
  });
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  after(() => new Promise((resolve) => server.close(resolve)));
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}
