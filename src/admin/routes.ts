// /admin/applications, /admin/clients, /admin/resources (SPEC.md "Resources and their fields"), /admin/identities
// and /admin/organizations/:id/members. Every route passes the owner guard first; handlers parse, make one call and
// reply.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Sub } from '../identity/ids.ts';
import type { IdentityAssurance } from '../identity/store.ts';
import { attemptContext } from '../login/local/deps.ts';
import * as applications from './applications.ts';
import * as clients from './clients.ts';
import type { Actor, AdminDeps } from './context.ts';
import type { AdminGuard } from './guard.ts';
import * as identities from './identities.ts';
import * as identityGrants from './identity-grants.ts';
import * as invitations from './invitations.ts';
import * as members from './members.ts';
import * as resources from './resources.ts';
import * as schemas from './schemas.ts';

export interface AdminRoutesDeps extends AdminDeps {
  requireAdmin: AdminGuard;
}

type Id = { Params: { id: string } };
type BySub = { Params: { sub: Sub } };
type Member = { Params: { id: string; sub: Sub } };
type GrantOf = { Params: { sub: Sub; client_id: string } };

export async function adminRoutes(app: FastifyInstance, deps: AdminRoutesDeps): Promise<void> {
  // The guard runs before body validation, so an anonymous caller learns nothing about the schemas.
  const actors = new WeakMap<FastifyRequest, Actor>();
  app.addHook('preValidation', async (request) => {
    const { identity } = await deps.requireAdmin(request);
    actors.set(request, { sub: identity.id, ...attemptContext(request) });
  });
  const actor = (request: FastifyRequest): Actor => {
    const found = actors.get(request);
    if (!found) throw new Error('admin guard did not run');
    return found;
  };
  const byId = { params: schemas.IdParams };
  const remove = { params: schemas.IdParams, body: schemas.EmptyBody };
  const list = { schema: { querystring: schemas.ListPage } };

  app.post('/admin/applications', { schema: { body: schemas.ApplicationCreate } }, async (request, reply) =>
    reply.code(201).send(await applications.createApplication(deps, actor(request), request.body as never)),
  );
  app.get('/admin/applications', list, async (request) => applications.listApplications(deps, request.query as never));
  app.get<Id>('/admin/applications/:id', { schema: byId }, async (request) =>
    applications.getApplication(deps, request.params.id),
  );
  app.patch<Id>('/admin/applications/:id', { schema: { ...byId, body: schemas.ApplicationUpdate } }, async (request) =>
    applications.updateApplication(deps, actor(request), request.params.id, request.body as never),
  );
  app.delete<Id>('/admin/applications/:id', { schema: remove }, async (request, reply) => {
    await applications.deleteApplication(deps, actor(request), request.params.id);
    return reply.code(204).send();
  });

  app.post('/admin/clients', { schema: { body: schemas.ClientCreate } }, async (request, reply) =>
    reply.code(201).send(await clients.createClient(deps, actor(request), request.body as never)),
  );
  app.get('/admin/clients', list, async (request) => clients.listClients(deps, request.query as never));
  app.get<Id>('/admin/clients/:id', { schema: byId }, async (request) => clients.getClient(deps, request.params.id));
  app.patch<Id>('/admin/clients/:id', { schema: { ...byId, body: schemas.ClientUpdate } }, async (request) =>
    clients.updateClient(deps, actor(request), request.params.id, request.body as never),
  );
  app.post<Id>('/admin/clients/:id/secret', { schema: remove }, async (request) =>
    clients.rotateClientSecret(deps, actor(request), request.params.id),
  );
  app.delete<Id>('/admin/clients/:id', { schema: remove }, async (request, reply) => {
    await clients.deleteClient(deps, actor(request), request.params.id);
    return reply.code(204).send();
  });

  app.post('/admin/resources', { schema: { body: schemas.ResourceCreate } }, async (request, reply) =>
    reply.code(201).send(await resources.createResource(deps, actor(request), request.body as never)),
  );
  app.get('/admin/resources', list, async (request) => resources.listResources(deps, request.query as never));
  app.get<Id>('/admin/resources/:id', { schema: byId }, async (request) =>
    resources.getResource(deps, request.params.id),
  );
  app.patch<Id>('/admin/resources/:id', { schema: { ...byId, body: schemas.ResourceUpdate } }, async (request) =>
    resources.updateResource(deps, actor(request), request.params.id, request.body as never),
  );
  app.delete<Id>('/admin/resources/:id', { schema: remove }, async (request, reply) => {
    await resources.deleteResource(deps, actor(request), request.params.id);
    return reply.code(204).send();
  });

  const bySub = { params: schemas.SubParams };
  const subChange = { params: schemas.SubParams, body: schemas.EmptyBody };
  app.get('/admin/identities', { schema: { querystring: schemas.IdentitySearch } }, async (request) =>
    identities.searchIdentities(deps, request.query as never),
  );
  app.post('/admin/identities', { schema: { body: schemas.Invitation } }, async (request, reply) =>
    reply.code(201).send(await invitations.inviteIdentity(deps, actor(request), request.body as never)),
  );
  app.get<BySub>('/admin/identities/:sub', { schema: bySub }, async (request) =>
    identities.getIdentity(deps, request.params.sub),
  );
  app.post<BySub>('/admin/identities/:sub/suspend', { schema: subChange }, async (request) =>
    identities.suspendIdentity(deps, actor(request), request.params.sub),
  );
  app.post<BySub>('/admin/identities/:sub/sessions/revoke', { schema: subChange }, async (request) =>
    identities.signOutEverywhere(deps, actor(request), request.params.sub),
  );
  app.post<BySub>('/admin/identities/:sub/enrollment-link', { schema: subChange }, async (request) =>
    invitations.issueResetLink(deps, actor(request), request.params.sub),
  );
  app.post<BySub>('/admin/identities/:sub/reactivate', { schema: subChange }, async (request) =>
    identities.reactivateIdentity(deps, actor(request), request.params.sub),
  );
  app.get<BySub>('/admin/identities/:sub/grants', { schema: bySub }, async (request) =>
    identityGrants.listIdentityGrants(deps, request.params.sub),
  );
  app.post<GrantOf>(
    '/admin/identities/:sub/grants/:client_id/revoke',
    { schema: { params: schemas.GrantParams, body: schemas.EmptyBody } },
    async (request) =>
      identityGrants.revokeIdentityGrant(deps, actor(request), request.params.sub, request.params.client_id),
  );
  app.post<BySub & { Body: { ial: IdentityAssurance } }>(
    '/admin/identities/:sub/assurance',
    { schema: { ...bySub, body: schemas.AssuranceChange } },
    async (request) => identities.setAssurance(deps, actor(request), request.params.sub, request.body.ial),
  );

  const member = { params: schemas.MemberParams };
  app.get('/admin/organizations', async () => members.listOrganizations(deps));
  app.get<Id>(
    '/admin/organizations/:id/members',
    { schema: { params: schemas.OrganizationParams, querystring: schemas.ListPage } },
    async (request) => members.listMembers(deps, request.params.id, request.query as never),
  );
  app.put<Member & { Body: { roles: string[] } }>(
    '/admin/organizations/:id/members/:sub',
    { schema: { ...member, body: schemas.MemberRoles } },
    async (request) =>
      members.setRoles(deps, actor(request), request.params.id, request.params.sub, request.body.roles),
  );
  app.delete<Member>(
    '/admin/organizations/:id/members/:sub',
    { schema: { ...member, body: schemas.EmptyBody } },
    async (request, reply) => {
      await members.removeMember(deps, actor(request), request.params.id, request.params.sub);
      return reply.code(204).send();
    },
  );
}
