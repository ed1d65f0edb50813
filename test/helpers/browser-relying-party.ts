// A relying party for browser tests: a plain HTTP server at its registered redirect URI that records each callback
// and answers with a "Signed in" page, its web client, and the authorization request a browser starts from.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { after } from 'node:test';
import type { TestApp } from './app.ts';
import { type ClientOverrides, makeClient } from './oauth-fixtures.ts';
import { pkcePair } from './oauth-flow.ts';

export async function startBrowserRelyingParty(t: Pick<TestApp, 'sql' | 'secrets' | 'url'>, o: ClientOverrides = {}) {
  const callbacks: URL[] = [];
  const rp = createServer((request, response) => {
    callbacks.push(new URL(request.url ?? '/', `http://${request.headers.host}`));
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>RP</title><h1>Signed in</h1>');
  });
  rp.listen(0, '127.0.0.1');
  await once(rp, 'listening');
  after(() => rp.close());
  const address = rp.address();
  const redirectUri = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/callback`;
  const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'web',
    name: 'Orbiter',
    redirectUris: [redirectUri],
    scopes: ['openid'],
    ...o,
  });
  /** An authorization request with PKCE S256 for `openid`, as the relying party sends the browser to it. */
  const authorizeUrl = (state: string) => {
    const authorize = new URL('/oauth/authorize', t.url);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state,
    }).toString();
    return authorize.href;
  };
  return { client, redirectUri, callbacks, authorizeUrl };
}
