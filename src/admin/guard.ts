// The one guard for /admin/* (SPEC.md Authentication 5, DESIGN.md "Admin access"): a live session of an active
// identity that owns the bootstrap organization, with identity assurance ial2, signed in at aal2.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Sql } from '../db/pool.ts';
import { GatehouseError } from '../http/errors.ts';
import { findIdentity, findMembershipRoles, type Identity } from '../identity/store.ts';
import { attemptContext } from '../login/local/deps.ts';
import type { SessionHttp } from '../session/http.ts';
import type { Session } from '../session/types.ts';
import type { Actor } from './context.ts';

export interface AdminContext {
  session: Session;
  identity: Identity;
}

export type AdminGuard = (request: FastifyRequest) => Promise<AdminContext>;

export function createAdminGuard(deps: { sql: Sql; sessions: SessionHttp; organizationId: string }): AdminGuard {
  return async (request) => {
    const session = await deps.sessions.require(request);
    const identity = await findIdentity(deps.sql, session.identityId);
    if (identity?.state !== 'active') throw new GatehouseError('admin_required', 'The account is not active');
    const roles = await findMembershipRoles(deps.sql, deps.organizationId, identity.id);
    if (!roles?.includes('owner'))
      throw new GatehouseError('admin_required', 'Only an owner of the organization may do this');
    if (identity.assurance !== 'ial2') throw new GatehouseError('admin_required', 'The owner must be verified to IAL2');
    if (session.aal !== 'aal2') throw new GatehouseError('admin_required', 'Sign in with a second factor (aal2) first');
    return { session, identity };
  };
}

/**
 * Puts `requireAdmin` in front of every route of `app` and returns who is acting on a request. The guard runs before
 * body validation, so an anonymous caller learns nothing about the schemas.
 */
export function guardAdminRoutes(app: FastifyInstance, requireAdmin: AdminGuard): (request: FastifyRequest) => Actor {
  const actors = new WeakMap<FastifyRequest, Actor>();
  app.addHook('preValidation', async (request) => {
    const { identity } = await requireAdmin(request);
    actors.set(request, { sub: identity.id, ...attemptContext(request) });
  });
  return (request) => {
    const found = actors.get(request);
    if (!found) throw new Error('admin guard did not run');
    return found;
  };
}
