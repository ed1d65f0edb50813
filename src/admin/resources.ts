// Protected API resource registration; every change audited.

import { newResourceId } from '../clients/ids.ts';
import { hasUserCredentials } from '../clients/redirect-uri.ts';
import * as store from '../clients/store.ts';
import { normalizedFormProblem } from '../config/uri-form.ts';
import { assertDisplayText } from '../http/display-text.ts';
import { GatehouseError, NotFound } from '../http/errors.ts';
import { invalidFields } from '../http/validation-messages.ts';
import { changedFields } from './changed-fields.ts';
import { type Actor, type AdminDeps, changeAudited } from './context.ts';
import { byCreation, type PageQuery, pageOf, pageRequest } from './paging.ts';

export interface ResourceInput {
  audience: string;
  name: string;
  scopes: string[];
}

export const presentResource = (r: store.Resource) => ({
  id: r.id,
  audience: r.audience,
  name: r.name,
  scopes: r.scopes,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

/**
 * An audience is an absolute URI without fragment (RFC 8707 §2), compared exactly, so it must be normalized; it
 * carries no user credentials (RFC 3986 §3.2.1), since audiences appear in every token issued for them. It is
 * never the issuer (with or without a final slash): that is the audience of every user access token, and a service
 * client provisioned for it could introspect them all and mint tokens that look like them (RFC 9068 §4).
 */
export function audienceProblem(value: string, issuer: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URI';
  }
  if (value.includes('#')) return 'must not contain a fragment';
  if (hasUserCredentials(url)) return 'must not contain user credentials';
  const form = normalizedFormProblem(value);
  if (form) return form;
  if (value.replace(/\/$/, '') === issuer.replace(/\/$/, ''))
    return 'must not be the issuer, which is the audience of user access tokens';
  return null;
}

export async function createResource(deps: AdminDeps, actor: Actor, input: ResourceInput) {
  assertDisplayText(input.name, 'body.name');
  const problem = audienceProblem(input.audience, deps.issuer);
  if (problem) throw invalidFields([{ path: 'body.audience', problem }]);
  const resource = await changeAudited(
    deps,
    actor,
    (tx) =>
      store
        .insertResource(tx, {
          id: newResourceId(),
          ...input,
          scopes: [...new Set(input.scopes)],
          createdAt: deps.clock(),
        })
        .catch((error) => {
          if (store.isUniqueViolation(error)) throw new GatehouseError('resource_exists');
          throw error;
        }),
    (r) => ({ event: 'resource.created', subject: r.id, details: { audience: r.audience } }),
  );
  return presentResource(resource);
}

export async function getResource(deps: AdminDeps, id: string) {
  const resource = await store.findResource(deps.sql, id);
  if (!resource) throw new NotFound('No such resource');
  return presentResource(resource);
}

/** One page, newest first (see paging.ts). */
export async function listResources(deps: AdminDeps, query: PageQuery) {
  const { limit, after } = pageRequest(query);
  const page = pageOf(await store.listResources(deps.sql, limit + 1, after), limit, byCreation);
  return { resources: page.items.map(presentResource), next_cursor: page.nextCursor };
}

const RESOURCE_FIELDS = { name: 'name', scopes: 'scopes' } as const;

type ResourceUpdate = { resource: store.Resource; changed: string[] } | 'missing' | store.HeldScope;

export async function updateResource(
  deps: AdminDeps,
  actor: Actor,
  id: string,
  changes: { name?: string; scopes?: string[] },
) {
  assertDisplayText(changes.name, 'body.name');
  const outcome = await changeAudited(
    deps,
    actor,
    async (tx): Promise<ResourceUpdate> => {
      const current = await store.lockResource(tx, id);
      if (!current) return 'missing';
      const next = {
        ...current,
        name: changes.name ?? current.name,
        scopes: changes.scopes ? [...new Set(changes.scopes)] : current.scopes,
      };
      const changed = changedFields(current, next, RESOURCE_FIELDS);
      if (changed.length === 0) return { resource: current, changed };
      const updated = await store.updateResource(tx, id, { name: next.name, scopes: next.scopes }, deps.clock());
      return updated === 'missing' || 'clientId' in updated ? updated : { resource: updated, changed };
    },
    (o) =>
      typeof o === 'object' && 'changed' in o && o.changed.length > 0
        ? { event: 'resource.updated', subject: id, details: { fields: o.changed.join(',') } }
        : null,
  );
  if (outcome === 'missing') throw new NotFound('No such resource');
  if ('clientId' in outcome)
    throw new GatehouseError(
      'resource_scope_in_use',
      `Client ${outcome.clientId} still holds scope ${outcome.scope} of this resource; update the client first.`,
    );
  return presentResource(outcome.resource);
}

export async function deleteResource(deps: AdminDeps, actor: Actor, id: string) {
  const outcome = await changeAudited(
    deps,
    actor,
    async (tx) => ((await store.lockResource(tx, id)) ? store.deleteResource(tx, id) : ('missing' as const)),
    (result) => (result === 'deleted' ? { event: 'resource.deleted', subject: id } : null),
  );
  if (outcome === 'missing') throw new NotFound('No such resource');
  if (outcome === 'in_use') throw new GatehouseError('resource_in_use');
}
