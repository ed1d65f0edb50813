// The comparison server: panva's oidc-provider with its in-memory adapter, configured like Gatehouse for client
// credentials: client_secret_post, a resource indicator, RS256 JWT access tokens of 10 minutes.
import { createPrivateKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import Provider from 'oidc-provider';

export async function startOidcProvider(pem: string, audience: string) {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const issuer = `http://127.0.0.1:${port}`;
  const jwk = createPrivateKey(pem).export({ format: 'jwk' });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'bench-service',
        client_secret: 'bench-secret-bench-secret-bench-secret-00',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'read write',
      },
    ],
    jwks: { keys: [{ ...jwk, kid: 'bench', alg: 'RS256', use: 'sig' }] as never },
    cookies: { keys: ['bench-cookie-key-bench-cookie-key-0000'] },
    scopes: ['read', 'write'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'read write',
          audience,
          accessTokenTTL: 600,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
  });
  server.on('request', provider.callback());
  return {
    url: issuer,
    clientId: 'bench-service',
    secret: 'bench-secret-bench-secret-bench-secret-00',
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
