// GET /admin/saml-connections: every SAML connection for the console (owner guard first), those of `[saml.<id>]`
// (read at startup, keys in secrets.dir) and those made through the admin API (src/admin/saml-connection-routes.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ADMIN_ERRORS, errorResponses } from '../../http/error-responses.ts';
import { SESSION } from '../../http/route-schema.ts';
import { Type } from '../../schema/type.ts';
import { connectionView } from './admin-view.ts';
import type { SamlConnection } from './connection.ts';

export interface SamlAdminRouteOptions {
  connections: Map<string, SamlConnection>;
  /** The owner guard (src/admin/guard.ts), passed in: admin already depends on login, not the other way. */
  requireAdmin: (request: FastifyRequest) => Promise<unknown>;
}

export const samlAdminRoutes: FastifyPluginAsyncTypebox<SamlAdminRouteOptions> = async (app, options) => {
  app.addHook('preValidation', async (request) => {
    await options.requireAdmin(request);
  });
  app.get(
    '/admin/saml-connections',
    {
      schema: {
        summary: 'The SAML connections, from the configuration file and made through the API',
        tags: ['admin'],
        security: SESSION,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          200: Type.Object(
            { connections: Type.Array(Type.Object({ id: Type.String() }, { additionalProperties: true })) },
            { additionalProperties: false },
          ),
          ...errorResponses(...ADMIN_ERRORS),
        },
      },
    },
    async () => ({ connections: [...options.connections.values()].map(connectionView) }),
  );
};
