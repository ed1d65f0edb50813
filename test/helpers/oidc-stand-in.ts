// A local stand-in for the provider-specific parts no second Gatehouse exercises: it publishes a discovery document
// (whatever issuer the test names, e.g. Microsoft's {tenantid} template), its keys, and a token endpoint that
// answers with an ID token whose claims the test chooses (another tenant, another audience). The test plays the
// authorization step itself: it reads the authorization request and builds the callback.
import { createServer, type IncomingMessage } from 'node:http';
import { after } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export interface StandIn {
  base: string;
  /** Claims for the next ID token, merged over iss/sub/aud/nonce/iat/exp the test passes via `nextToken`. */
  nextToken: Record<string, unknown>;
  /** What the token endpoint last received. */
  lastTokenRequest: URLSearchParams | null;
  /**
   * Sign the next ID token with a second key that /keys never publishes, under the published key's kid: a forged
   * token that only a signature check tells apart. Cleared once used.
   */
  forgeNextToken: boolean;
}

const body = async (request: IncomingMessage) => {
  let text = '';
  for await (const chunk of request) text += chunk;
  return new URLSearchParams(text);
};

/** A plain provider's discovery document at `base`: what a test's stand-in serves unless it needs to differ. */
export const plainDiscovery = (base: string): Record<string, unknown> => ({
  issuer: base,
  authorization_endpoint: `${base}/authorize`,
  token_endpoint: `${base}/token`,
  jwks_uri: `${base}/keys`,
  response_types_supported: ['code'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256'],
});

/** `discovery` is served at `{base}{path}/.well-known/openid-configuration` for every path in it. */
export async function startStandIn(discovery: (base: string) => Record<string, Record<string, unknown>>) {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'stand-in-1', alg: 'RS256', use: 'sig' };
  const unpublished = (await generateKeyPair('RS256')).privateKey;
  const standIn: StandIn = { base: '', nextToken: {}, lastTokenRequest: null, forgeNextToken: false };
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', standIn.base).pathname;
    const json = (status: number, value: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const documents = discovery(standIn.base);
    const document = Object.entries(documents).find(([p]) => path === `${p}/.well-known/openid-configuration`);
    if (document) return json(200, document[1]);
    if (path === '/keys') return json(200, { keys: [jwk] });
    if (path === '/token' && request.method === 'POST') {
      standIn.lastTokenRequest = await body(request);
      const now = Math.floor(Date.now() / 1000);
      const idToken = await new SignJWT({ iat: now, exp: now + 600, ...standIn.nextToken })
        .setProtectedHeader({ alg: 'RS256', kid: 'stand-in-1' })
        .sign(standIn.forgeNextToken ? unpublished : privateKey);
      standIn.forgeNextToken = false;
      return json(200, { access_token: 'stand-in-access', token_type: 'Bearer', expires_in: 600, id_token: idToken });
    }
    return json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  standIn.base = `http://127.0.0.1:${port}`;
  after(() => new Promise((resolve) => server.close(resolve)));
  return standIn;
}
