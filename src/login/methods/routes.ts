// GET /auth/providers: the sign-in methods the hosted sign-in page offers. Public and the same for everyone, so it
// may be cached briefly; a config change (which needs a restart anyway) shows within a minute.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/schema.ts';
import { signInMethods } from './available.ts';
import { SignInMethodsAnswer } from './route-schemas.ts';

export const PROVIDERS_MAX_AGE_SECONDS = 60;

export async function signInMethodRoutes(app: FastifyInstance, deps: { config: Config }): Promise<void> {
  // Computed once: the answer depends on configuration alone, which does not change while the process runs.
  const methods = signInMethods(deps.config);
  const schema = {
    summary: 'The sign-in methods the hosted sign-in page offers',
    tags: ['sign-in'],
    response: { 200: SignInMethodsAnswer },
  };
  app.get('/auth/providers', { schema }, async (_request, reply) =>
    reply.header('cache-control', `public, max-age=${PROVIDERS_MAX_AGE_SECONDS}`).send(methods),
  );
}
