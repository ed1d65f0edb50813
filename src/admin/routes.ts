// /admin/applications, /admin/clients, /admin/resources (SPEC.md "Resources and their fields"), /admin/identities
// and /admin/organizations/:id/members. Every route passes the owner guard first; handlers parse, make one call and
// reply.
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import { ADMIN_ERRORS, type DocumentedError, errorResponses } from '../http/error-responses.ts';
import { SESSION } from '../http/route-schema.ts';
import type { Sub } from '../identity/ids.ts';
import type { IdentityAssurance } from '../identity/store.ts';
import * as applications from './applications.ts';
import * as clients from './clients.ts';
import type { AdminDeps } from './context.ts';
import { type AdminGuard, guardAdminRoutes } from './guard.ts';
import * as identities from './identities.ts';
import * as identityGrants from './identity-grants.ts';
import * as invitations from './invitations.ts';
import { whoAmI } from './me.ts';
import * as members from './members.ts';
import * as resources from './resources.ts';
import * as answers from './response-schemas.ts';
import * as schemas from './schemas.ts';

export interface AdminRoutesDeps extends AdminDeps {
  requireAdmin: AdminGuard;
}

type Id = { Params: { id: string } };
type BySub = { Params: { sub: Sub } };
type Member = { Params: { id: string; sub: Sub } };
type GrantOf = { Params: { sub: Sub; client_id: string } };

export async function adminRoutes(app: FastifyInstance, deps: AdminRoutesDeps): Promise<void> {
  const actor = guardAdminRoutes(app, deps.requireAdmin);
  /** The contract's part of a route's schema: who may call, what it answers, and its errors beyond the guard's. */
  const doc = (summary: string, ok: Record<number, TSchema>, ...errors: DocumentedError[]) => ({
    summary,
    tags: ['admin'],
    security: SESSION,
    response: { ...ok, ...errorResponses(...ADMIN_ERRORS, ...errors) },
  });
  const byId = { params: schemas.IdParams };
  const remove = { params: schemas.IdParams, body: schemas.EmptyBody };
  const list = (summary: string, page: TSchema) => ({
    schema: { querystring: schemas.ListPage, ...doc(summary, { 200: page }) },
  });

  app.get('/admin/me', { schema: doc('Who is signed in: the console header', { 200: answers.Me }) }, async (request) =>
    whoAmI(deps, actor(request).sub as Sub),
  );

  app.post(
    '/admin/applications',
    {
      schema: {
        body: schemas.ApplicationCreate,
        ...doc('Registers an application', { 201: answers.Application }, 'application_exists'),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await applications.createApplication(deps, actor(request), request.body as never)),
  );
  app.get('/admin/applications', list('Lists applications, newest first', answers.ApplicationPage), async (request) =>
    applications.listApplications(deps, request.query as never),
  );
  app.get<Id>(
    '/admin/applications/:id',
    { schema: { ...byId, ...doc('An application', { 200: answers.Application }, 'not_found') } },
    async (request) => applications.getApplication(deps, request.params.id),
  );
  app.patch<Id>(
    '/admin/applications/:id',
    {
      schema: {
        ...byId,
        body: schemas.ApplicationUpdate,
        ...doc(
          'Changes an application',
          { 200: answers.Application },
          'not_found',
          'application_exists',
          'application_environment_conflict',
        ),
      },
    },
    async (request) => applications.updateApplication(deps, actor(request), request.params.id, request.body as never),
  );
  app.delete<Id>(
    '/admin/applications/:id',
    {
      schema: {
        ...remove,
        ...doc('Deletes an application without clients', { 204: answers.Deleted }, 'not_found', 'application_in_use'),
      },
    },
    async (request, reply) => {
      await applications.deleteApplication(deps, actor(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/admin/clients',
    {
      schema: {
        body: schemas.ClientCreate,
        ...doc('Registers an OAuth client', { 201: answers.ClientWithSecret }, 'not_found'),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await clients.createClient(deps, actor(request), request.body as never)),
  );
  app.get('/admin/clients', list('Lists OAuth clients, newest first', answers.ClientPage), async (request) =>
    clients.listClients(deps, request.query as never),
  );
  app.get<Id>(
    '/admin/clients/:id',
    { schema: { ...byId, ...doc('An OAuth client', { 200: answers.Client }, 'not_found') } },
    async (request) => clients.getClient(deps, request.params.id),
  );
  app.patch<Id>(
    '/admin/clients/:id',
    {
      schema: {
        ...byId,
        body: schemas.ClientUpdate,
        ...doc('Changes an OAuth client', { 200: answers.Client }, 'not_found'),
      },
    },
    async (request) => clients.updateClient(deps, actor(request), request.params.id, request.body as never),
  );
  app.post<Id>(
    '/admin/clients/:id/secret',
    { schema: { ...remove, ...doc("Replaces a client's secret", { 200: answers.RotatedSecret }, 'not_found') } },
    async (request) => clients.rotateClientSecret(deps, actor(request), request.params.id),
  );
  app.delete<Id>(
    '/admin/clients/:id',
    { schema: { ...remove, ...doc('Deletes an OAuth client', { 204: answers.Deleted }, 'not_found') } },
    async (request, reply) => {
      await clients.deleteClient(deps, actor(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/admin/resources',
    {
      schema: {
        body: schemas.ResourceCreate,
        ...doc('Registers a resource (an API audience)', { 201: answers.Resource }, 'resource_exists'),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await resources.createResource(deps, actor(request), request.body as never)),
  );
  app.get('/admin/resources', list('Lists resources, newest first', answers.ResourcePage), async (request) =>
    resources.listResources(deps, request.query as never),
  );
  app.get<Id>(
    '/admin/resources/:id',
    { schema: { ...byId, ...doc('A resource', { 200: answers.Resource }, 'not_found') } },
    async (request) => resources.getResource(deps, request.params.id),
  );
  app.patch<Id>(
    '/admin/resources/:id',
    {
      schema: {
        ...byId,
        body: schemas.ResourceUpdate,
        ...doc('Changes a resource', { 200: answers.Resource }, 'not_found', 'resource_scope_in_use'),
      },
    },
    async (request) => resources.updateResource(deps, actor(request), request.params.id, request.body as never),
  );
  app.delete<Id>(
    '/admin/resources/:id',
    { schema: { ...remove, ...doc('Deletes a resource', { 204: answers.Deleted }, 'not_found', 'resource_in_use') } },
    async (request, reply) => {
      await resources.deleteResource(deps, actor(request), request.params.id);
      return reply.code(204).send();
    },
  );

  const bySub = { params: schemas.SubParams };
  const subChange = (summary: string, ok: TSchema, ...errors: DocumentedError[]) => ({
    schema: {
      params: schemas.SubParams,
      body: schemas.EmptyBody,
      ...doc(summary, { 200: ok }, 'not_found', ...errors),
    },
  });
  app.get(
    '/admin/identities',
    {
      schema: {
        querystring: schemas.IdentitySearch,
        ...doc('Searches identities, newest first', { 200: answers.IdentityPage }),
      },
    },
    async (request) => identities.searchIdentities(deps, request.query as never),
  );
  app.post(
    '/admin/identities',
    {
      schema: {
        body: schemas.Invitation,
        ...doc('Invites a person: an active identity with an enrollment link', { 201: answers.Invited }, 'email_taken'),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await invitations.inviteIdentity(deps, actor(request), request.body as never)),
  );
  app.get<BySub>(
    '/admin/identities/:sub',
    {
      schema: {
        ...bySub,
        ...doc(
          'An identity with its emails, sign-in methods, memberships and sessions',
          { 200: answers.IdentityDetail },
          'not_found',
        ),
      },
    },
    async (request) => identities.getIdentity(deps, request.params.sub),
  );
  app.post<BySub>(
    '/admin/identities/:sub/suspend',
    subChange(
      'Suspends an identity, ending its sessions and grants',
      answers.Suspended,
      'cannot_suspend_self',
      'last_owner',
      'invalid_identity_state',
    ),
    async (request) => identities.suspendIdentity(deps, actor(request), request.params.sub),
  );
  app.post<BySub>(
    '/admin/identities/:sub/sessions/revoke',
    subChange('Signs an identity out everywhere', answers.SessionsRevoked),
    async (request) => identities.signOutEverywhere(deps, actor(request), request.params.sub),
  );
  app.post<BySub>(
    '/admin/identities/:sub/enrollment-link',
    subChange('Issues a new enrollment link', answers.EnrollmentLink, 'invalid_identity_state'),
    async (request) => invitations.issueResetLink(deps, actor(request), request.params.sub),
  );
  app.post<BySub>(
    '/admin/identities/:sub/reactivate',
    subChange('Reactivates a suspended identity', answers.Reactivated, 'invalid_identity_state'),
    async (request) => identities.reactivateIdentity(deps, actor(request), request.params.sub),
  );
  app.get<BySub>(
    '/admin/identities/:sub/grants',
    {
      schema: {
        ...bySub,
        ...doc('The applications an identity has granted access', { 200: answers.IdentityGrants }, 'not_found'),
      },
    },
    async (request) => identityGrants.listIdentityGrants(deps, request.params.sub),
  );
  app.post<GrantOf>(
    '/admin/identities/:sub/grants/:client_id/revoke',
    {
      schema: {
        params: schemas.GrantParams,
        body: schemas.EmptyBody,
        ...doc("Revokes an application's access for an identity", { 200: answers.GrantRevoked }, 'not_found'),
      },
    },
    async (request) =>
      identityGrants.revokeIdentityGrant(deps, actor(request), request.params.sub, request.params.client_id),
  );
  app.post<BySub & { Body: { ial: IdentityAssurance } }>(
    '/admin/identities/:sub/assurance',
    {
      schema: {
        ...bySub,
        body: schemas.AssuranceChange,
        ...doc(
          "Sets an identity's assurance level",
          { 200: answers.AssuranceSet },
          'not_found',
          'last_owner',
          'invalid_identity_state',
        ),
      },
    },
    async (request) => identities.setAssurance(deps, actor(request), request.params.sub, request.body.ial),
  );

  const member = { params: schemas.MemberParams };
  app.get('/admin/organizations', { schema: doc('Lists organizations', { 200: answers.Organizations }) }, async () =>
    members.listOrganizations(deps),
  );
  app.get<Id>(
    '/admin/organizations/:id/members',
    {
      schema: {
        params: schemas.OrganizationParams,
        querystring: schemas.ListPage,
        ...doc("An organization's members", { 200: answers.MemberPage }, 'not_found'),
      },
    },
    async (request) => members.listMembers(deps, request.params.id, request.query as never),
  );
  app.put<Member & { Body: { roles: string[] } }>(
    '/admin/organizations/:id/members/:sub',
    {
      schema: {
        ...member,
        body: schemas.MemberRoles,
        ...doc(
          "Sets a person's roles in an organization",
          { 200: answers.MemberRolesSet },
          'not_found',
          'last_owner',
          'invalid_identity_state',
        ),
      },
    },
    async (request) =>
      members.setRoles(deps, actor(request), request.params.id, request.params.sub, request.body.roles),
  );
  app.delete<Member>(
    '/admin/organizations/:id/members/:sub',
    {
      schema: {
        ...member,
        body: schemas.EmptyBody,
        ...doc('Removes a person from an organization', { 204: answers.Deleted }, 'not_found', 'last_owner'),
      },
    },
    async (request, reply) => {
      await members.removeMember(deps, actor(request), request.params.id, request.params.sub);
      return reply.code(204).send();
    },
  );
}
