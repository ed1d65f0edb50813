// Application registration: create, list, read, update, delete; every change audited.

import { redirectProblems } from '../clients/client-rules.ts';
import { newApplicationId } from '../clients/ids.ts';
import * as store from '../clients/store.ts';
import type { Executor } from '../db/pool.ts';
import { assertDisplayText } from '../http/display-text.ts';
import { GatehouseError, NotFound } from '../http/errors.ts';
import { changedFields } from './changed-fields.ts';
import { type Actor, type AdminDeps, changeAudited } from './context.ts';
import { byCreation, type PageQuery, pageOf, pageRequest } from './paging.ts';

export interface ApplicationInput {
  identifier: string;
  name: string;
  environment: store.Environment;
}

export const presentApplication = (a: store.Application) => ({
  id: a.id,
  identifier: a.identifier,
  name: a.name,
  environment: a.environment,
  created_at: a.createdAt.toISOString(),
  updated_at: a.updatedAt.toISOString(),
});

const APPLICATION_FIELDS = { identifier: 'identifier', name: 'name', environment: 'environment' } as const;

const conflict = (error: unknown): never => {
  if (store.isUniqueViolation(error)) throw new GatehouseError('application_exists');
  throw error;
};

export async function createApplication(deps: AdminDeps, actor: Actor, input: ApplicationInput) {
  assertDisplayText(input.name, 'body.name');
  const app = await changeAudited(
    deps,
    actor,
    (tx) => store.insertApplication(tx, { id: newApplicationId(), ...input, createdAt: deps.clock() }).catch(conflict),
    (a) => ({ event: 'application.created', subject: a.id, details: { identifier: a.identifier } }),
  );
  return presentApplication(app);
}

export async function getApplication(deps: AdminDeps, id: string) {
  const app = await store.findApplication(deps.sql, id);
  if (!app) throw new NotFound('No such application');
  return presentApplication(app);
}

/** One page, newest first (see paging.ts). */
export async function listApplications(deps: AdminDeps, query: PageQuery) {
  const { limit, after } = pageRequest(query);
  const page = pageOf(await store.listApplications(deps.sql, limit + 1, after), limit, byCreation);
  return { applications: page.items.map(presentApplication), next_cursor: page.nextCursor };
}

/** Refuses an environment its clients' redirect URIs do not fit (localhost outside development), naming one. */
async function assertClientsFit(tx: Executor, id: string, environment: store.Environment) {
  for (const client of await store.listApplicationClients(tx, id)) {
    const [problem] = redirectProblems(client, environment);
    if (problem)
      throw new GatehouseError(
        'application_environment_conflict',
        `Client ${client.id} (${client.name}) has ${problem.uri}, which a ${environment} application may not use ` +
          `(${problem.problem}); update or delete the client first`,
      );
  }
}

export async function updateApplication(deps: AdminDeps, actor: Actor, id: string, changes: Partial<ApplicationInput>) {
  assertDisplayText(changes.name, 'body.name');
  const outcome = await changeAudited(
    deps,
    actor,
    async (tx) => {
      const current = await store.lockApplication(tx, id, 'update');
      if (!current) throw new NotFound('No such application');
      const next = {
        ...current,
        identifier: changes.identifier ?? current.identifier,
        name: changes.name ?? current.name,
        environment: changes.environment ?? current.environment,
      };
      const changed = changedFields(current, next, APPLICATION_FIELDS);
      if (changed.length === 0) return { application: current, changed };
      if (next.environment !== current.environment) await assertClientsFit(tx, id, next.environment);
      const updated = await store.updateApplication(tx, id, next, deps.clock()).catch(conflict);
      if (!updated) throw new NotFound('No such application');
      return { application: updated, changed };
    },
    ({ changed }) =>
      changed.length > 0 ? { event: 'application.updated', subject: id, details: { fields: changed.join(',') } } : null,
  );
  return presentApplication(outcome.application);
}

export async function deleteApplication(deps: AdminDeps, actor: Actor, id: string) {
  const outcome = await changeAudited(
    deps,
    actor,
    (tx) => store.deleteApplication(tx, id),
    (result) => (result === 'deleted' ? { event: 'application.deleted', subject: id } : null),
  );
  if (outcome === 'missing') throw new NotFound('No such application');
  if (outcome === 'in_use') throw new GatehouseError('application_in_use');
}
