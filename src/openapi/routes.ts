// GET /openapi.json (SPEC.md "Versioning"): the HTTP contract as OpenAPI 3.1, built from the routes this instance
// registered, with the configured issuer as its server URL. Built on first request, when every route is known, and
// kept: routes do not change while the process runs.

import type { FastifyInstance } from 'fastify';
import { Type } from '../schema/type.ts';
import type { CollectedRoute } from './collect.ts';
import { buildOpenApiDocument } from './document.ts';

export interface OpenApiRouteOptions {
  routes: readonly CollectedRoute[];
  issuer: string;
  version: string;
}

export async function openApiRoutes(app: FastifyInstance, options: OpenApiRouteOptions): Promise<void> {
  let document: string | null = null;
  app.get(
    '/openapi.json',
    {
      schema: {
        summary: 'This API as an OpenAPI 3.1 document',
        tags: ['meta'],
        response: {
          200: {
            description: 'The OpenAPI 3.1 document; its server URL is the configured issuer.',
            content: { 'application/json': { schema: Type.Object({ openapi: Type.String() }) } },
          },
        },
      },
    },
    async (_request, reply) => {
      document ??= JSON.stringify(buildOpenApiDocument(options.routes, options));
      return reply
        .type('application/json; charset=utf-8')
        .header('cache-control', 'public, max-age=300')
        .header('access-control-allow-origin', '*')
        .send(document);
    },
  );
}
