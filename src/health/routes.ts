import type { FastifyInstance } from 'fastify';
import type { Migration } from '../db/migrate.ts';
import type { Sql } from '../db/pool.ts';
import { errorResponses } from '../http/error-responses.ts';
import { GatehouseError } from '../http/errors.ts';
import { Type } from '../schema/type.ts';
import { checkReadiness } from './readiness.ts';

export interface HealthDeps {
  sql: Sql;
  migrations: Migration[];
}

const Ok = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });

export async function healthRoutes(app: FastifyInstance, deps: HealthDeps): Promise<void> {
  // Liveness: the process answers. Never touches the database, so a database outage does not restart the node.
  app.get(
    '/health/live',
    { schema: { summary: 'Liveness: the process answers', tags: ['health'], response: { 200: Ok } } },
    async () => ({ status: 'ok' }),
  );

  // Readiness (SPEC.md): ok only when the database answers and every migration is applied.
  app.get(
    '/health/ready',
    {
      schema: {
        summary: 'Readiness: the database answers and every migration is applied',
        tags: ['health'],
        response: { 200: Ok, ...errorResponses('not_ready') },
      },
    },
    async () => {
      const problem = await checkReadiness(deps.sql, deps.migrations);
      if (problem) throw new GatehouseError('not_ready', problem);
      return { status: 'ok' };
    },
  );
}
