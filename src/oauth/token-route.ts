// POST /oauth/token (RFC 6749 §3.2): form body only; keeps only the parameters the grant declares and knows no
// grant names. Responses are never cached (RFC 6749 §5.1); the error envelope carries the §5.2 members. A DPoP proof
// (RFC 9449 §5) is verified before the grant runs, which binds its tokens to the proof's key.
import type { FastifyInstance } from 'fastify';
import { echoInput, InvalidRequest } from '../http/errors.ts';
import { CLIENT } from '../http/route-schema.ts';
import { attemptContext } from '../login/local/deps.ts';
import { rejectAuthorizationHeader } from './client-auth.ts';
import { allowPreflight, corsHeaders } from './cors.ts';
import { type DpopDeps, requestBinding } from './dpop.ts';
import { UnsupportedGrantType } from './errors.ts';
import { formParams } from './form.ts';
import { findGrant } from './grants/index.ts';
import type { GrantDeps } from './grants/types.ts';
import { TokenAnswer, TokenErrors, TokenForm } from './route-schemas.ts';

/** Client authentication's parameters (client-auth.ts), read whatever the grant. */
const CLIENT_PARAMETERS = ['client_id', 'client_secret', 'client_assertion', 'client_assertion_type'];

export interface TokenRouteDeps extends GrantDeps {
  /** Told the grant type of every token response issued (metrics). */
  onIssued: (grantType: string) => void;
  dpop: DpopDeps;
}

export async function tokenRoute(app: FastifyInstance, deps: TokenRouteDeps): Promise<void> {
  allowPreflight(app, '/oauth/token', 'POST');
  const schema = {
    summary:
      'Token endpoint (RFC 6749 §3.2): exchanges a code, a refresh token, client credentials or an access token (RFC 8693)',
    tags: ['oauth'],
    security: CLIENT,
    handlerParses: { form: TokenForm },
    response: { 200: TokenAnswer, ...TokenErrors },
  };
  app.post('/oauth/token', { onSend: corsHeaders, schema }, async (request, reply) => {
    rejectAuthorizationHeader(request.headers.authorization);
    const body = formParams(request);
    if (!body.grant_type) throw new InvalidRequest('grant_type is required');
    const grant = findGrant(body.grant_type);
    if (!grant) throw new UnsupportedGrantType(`grant_type ${echoInput(body.grant_type)} is not supported`);
    const params: Record<string, string> = {};
    for (const name of [...CLIENT_PARAMETERS, ...grant.parameters]) {
      const value = body[name];
      if (value !== undefined) params[name] = value;
    }
    const binding = await requestBinding(deps.dpop, request.headers.dpop, '/oauth/token');
    // RFC 9449 §8.2: a fresh nonce with every answer, so the client's next proof needs no extra round trip.
    if (deps.dpop.nonces) reply.header('dpop-nonce', deps.dpop.nonces.current());
    const issued = await grant.handle(deps, params, attemptContext(request), binding);
    deps.onIssued(grant.grantType);
    return reply.header('cache-control', 'no-store').send(issued);
  });
}
