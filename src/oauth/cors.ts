// CORS for the endpoints a browser-only client (`kind: browser`) calls from its own origin: discovery, JWKS,
// token, userinfo and revocation, with DPoP's request and nonce headers (RFC 9449 §8). None of them reads cookies
// and every answer is `*` without credentials, so a cross-origin page gains nothing it could not get from any HTTP
// client. The authorization endpoint, the consent
// and logout forms, and introspection (backends only) get no CORS headers (DESIGN.md "Security invariants").
import type { FastifyInstance, onSendHookHandler } from 'fastify';
import { noBody } from '../http/route-schema.ts';

// Callback form: an async hook costs a promise and a microtask turn on every token and userinfo response.
export const corsHeaders: onSendHookHandler = (_request, reply, payload, done) => {
  reply.header('access-control-allow-origin', '*');
  reply.header('access-control-expose-headers', 'www-authenticate, x-request-id, dpop-nonce');
  done(null, payload);
};

/** Answers the preflight for `path`. */
export function allowPreflight(app: FastifyInstance, path: string, methods: string): void {
  const schema = {
    summary: `CORS preflight for ${path}`,
    tags: ['oauth'],
    response: { 204: noBody('The methods and headers a browser client may use.') },
  };
  app.options(path, { schema }, async (_request, reply) =>
    reply
      .code(204)
      .header('access-control-allow-origin', '*')
      .header('access-control-allow-methods', methods)
      .header('access-control-allow-headers', 'authorization, content-type, dpop')
      .header('access-control-max-age', '600')
      .send(),
  );
}
