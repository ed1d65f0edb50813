// Child process entry for the comparison server (started by oidc-provider.ts): panva's oidc-provider with its
// in-memory adapter, configured like Gatehouse for client credentials: client_secret_post, a resource indicator,
// RS256 JWT access tokens of 10 minutes. Nothing else runs in this process.
import { createPrivateKey } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const CLIENT_ID = process.env.BENCH_OIDC_CLIENT_ID as string;
const CLIENT_SECRET = process.env.BENCH_OIDC_CLIENT_SECRET as string;
const pem = process.env.BENCH_OIDC_PEM as string;
const audience = process.env.BENCH_OIDC_AUDIENCE as string;
const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };
const issuer = `http://127.0.0.1:${port}`;
const jwk = createPrivateKey(pem).export({ format: 'jwk' });
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
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
process.send?.({ url: issuer });
process.on('SIGTERM', () => server.close(() => process.exit(0)));
