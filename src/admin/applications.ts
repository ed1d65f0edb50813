// Application registration: create, list, read, update, delete; every change audited.
import { GatehouseError, NotFound } from '../http/errors.ts';
import { newApplicationId } from '../oauth/ids.ts';
import { type Actor, type AdminDeps, auditChange } from './context.ts';
import * as store from './store.ts';

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

const conflict = (error: unknown): never => {
  if (store.isUniqueViolation(error)) throw new GatehouseError('application_exists');
  throw error;
};

export async function createApplication(deps: AdminDeps, actor: Actor, input: ApplicationInput) {
  const app = await store
    .insertApplication(deps.sql, { id: newApplicationId(), ...input, createdAt: deps.clock() })
    .catch(conflict);
  await auditChange(deps, actor, 'application.created', app.id, { identifier: app.identifier });
  return presentApplication(app);
}

export async function getApplication(deps: AdminDeps, id: string) {
  const app = await store.findApplication(deps.sql, id);
  if (!app) throw new NotFound('No such application');
  return presentApplication(app);
}

export async function listApplications(deps: AdminDeps) {
  return { applications: (await store.listApplications(deps.sql)).map(presentApplication) };
}

export async function updateApplication(deps: AdminDeps, actor: Actor, id: string, changes: Partial<ApplicationInput>) {
  const app = await store.updateApplication(deps.sql, id, changes, deps.clock()).catch(conflict);
  if (!app) throw new NotFound('No such application');
  await auditChange(deps, actor, 'application.updated', id, { fields: Object.keys(changes).join(',') });
  return presentApplication(app);
}

export async function deleteApplication(deps: AdminDeps, actor: Actor, id: string) {
  const outcome = await store.deleteApplication(deps.sql, id);
  if (outcome === 'missing') throw new NotFound('No such application');
  if (outcome === 'in_use') throw new GatehouseError('application_in_use');
  await auditChange(deps, actor, 'application.deleted', id);
}
