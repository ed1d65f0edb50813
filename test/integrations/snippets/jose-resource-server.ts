// A resource server verifying Gatehouse access tokens (RFC 9068 JWTs) locally with jose.
import { createRemoteJWKSet, jwtVerify } from 'jose';

export function gatehouseAccessTokens(issuer: string, audience: string) {
  const keys = createRemoteJWKSet(new URL('/.well-known/jwks.json', issuer));
  /** The token's claims when it is valid for this API and carries `scope`; throws otherwise. */
  return async (authorization: string | undefined, scope: string) => {
    const token = /^Bearer ([\w.-]+)$/.exec(authorization ?? '')?.[1];
    if (!token) throw new Error('no bearer token');
    const { payload } = await jwtVerify(token, keys, {
      issuer,
      audience, // the exact audience the API was registered with
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    if (
      !String(payload.scope ?? '')
        .split(' ')
        .includes(scope)
    )
      throw new Error(`scope ${scope} is required`);
    return payload;
  };
}
