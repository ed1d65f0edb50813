// GET /auth/providers: the sign-in methods the hosted sign-in page offers. Public and the same for everyone, so it
// may be cached briefly; a change (a config change needs a restart; a SAML connection made or removed through the
// admin API does not) shows within a minute.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/schema.ts';
import type { SamlConnection } from '../saml/connection.ts';
import { signInMethods } from './available.ts';
import { SignInMethodsAnswer } from './route-schemas.ts';

export const PROVIDERS_MAX_AGE_SECONDS = 60;

export async function signInMethodRoutes(
  app: FastifyInstance,
  deps: { config: Config; samlConnections?: Map<string, SamlConnection> },
): Promise<void> {
  const schema = {
    summary: 'The sign-in methods the hosted sign-in page offers',
    tags: ['sign-in'],
    response: { 200: SignInMethodsAnswer },
  };
  app.get('/auth/providers', { schema }, async (_request, reply) =>
    // Computed per request: the SAML connection map changes when an owner adds or removes one through the admin API.
    reply
      .header('cache-control', `public, max-age=${PROVIDERS_MAX_AGE_SECONDS}`)
      .send(signInMethods(deps.config, deps.samlConnections)),
  );
}
