import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';

const issuer = process.env.GATEHOUSE_ISSUER ?? 'https://id.example.com';
const audience = process.env.API_AUDIENCE ?? 'https://api.example.com/orders';
// Fetched once, cached, and refetched when a token names a key it has not seen (after `gatehouse keys rotate`).
const jwks = createRemoteJWKSet(new URL('/.well-known/jwks.json', issuer));

/** The claims of a Gatehouse access token for this API that grants `scope`; throws otherwise. */
export async function verifyAccessToken(token: string, scope: string): Promise<JWTPayload> {
  const { payload } = await jwtVerify(token, jwks, {
    issuer, // exactly the issuer
    audience, // exactly this API's registered audience: a token for another API is refused
    typ: 'at+jwt', // an access token (RFC 9068), never an ID token
    algorithms: ['RS256'], // the only algorithm Gatehouse signs with
  });
  if (typeof payload.scope !== 'string' || !payload.scope.split(' ').includes(scope))
    throw new Error(`insufficient_scope: ${scope}`);
  return payload;
}
