// GET /auth/providers: the sign-in methods the hosted sign-in page offers. Public and the same for everyone, so it
// may be cached briefly; a config change (which needs a restart anyway) shows within a minute.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/schema.ts';
import { signInMethods } from './available.ts';

export const PROVIDERS_MAX_AGE_SECONDS = 60;

export async function signInMethodRoutes(app: FastifyInstance, deps: { config: Config }): Promise<void> {
  // Computed once: the answer depends on configuration alone, which does not change while the process runs.
  const methods = signInMethods(deps.config);
  app.get('/auth/providers', async (_request, reply) =>
    reply.header('cache-control', `public, max-age=${PROVIDERS_MAX_AGE_SECONDS}`).send(methods),
  );
}
