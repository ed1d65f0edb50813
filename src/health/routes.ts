import type { FastifyInstance } from 'fastify';
import type { Migration } from '../db/migrate.ts';
import type { Sql } from '../db/pool.ts';
import { GatehouseError } from '../http/errors.ts';
import { checkReadiness } from './readiness.ts';

export interface HealthDeps {
  sql: Sql;
  migrations: Migration[];
}

export async function healthRoutes(app: FastifyInstance, deps: HealthDeps): Promise<void> {
  // Liveness: the process answers. Never touches the database, so a database outage does not restart the node.
  app.get('/health/live', async () => ({ status: 'ok' }));

  // Readiness (SPEC.md): ok only when the database answers and every migration is applied.
  app.get('/health/ready', async () => {
    const problem = await checkReadiness(deps.sql, deps.migrations);
    if (problem) throw new GatehouseError('not_ready', problem);
    return { status: 'ok' };
  });
}
