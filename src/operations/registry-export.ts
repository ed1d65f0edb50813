// `gatehouse export`: applications, resources and OAuth clients as one JSON document, in the admin API's creation
// shapes (so `gatehouse import` checks each entry with the API's own schemas). Never a secret: a client's secret is
// stored only as an HMAC anyway, and an import gives a confidential client a new one (registry-import.ts).
import { listApplications } from '../admin/applications.ts';
import { listClients } from '../admin/clients.ts';
import type { AdminDeps } from '../admin/context.ts';
import { listResources } from '../admin/resources.ts';
import { VERSION } from '../version.ts';

export const EXPORT_FORMAT = 1;

/** Every page of an admin listing, oldest last as the API orders them. */
async function everything<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>) {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const { items, next } = await page(cursor);
    all.push(...items);
    cursor = next ?? undefined;
  } while (cursor);
  return all;
}

const PAGE = '100';

export async function exportRegistry(deps: AdminDeps, clock: () => Date = () => new Date()) {
  const applications = await everything(async (cursor) => {
    const r = await listApplications(deps, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    return { items: r.applications, next: r.next_cursor };
  });
  const resources = await everything(async (cursor) => {
    const r = await listResources(deps, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    return { items: r.resources, next: r.next_cursor };
  });
  const clients = await everything(async (cursor) => {
    const r = await listClients(deps, { limit: PAGE, ...(cursor ? { cursor } : {}) });
    return { items: r.clients, next: r.next_cursor };
  });
  const identifierOf = new Map(applications.map((a) => [a.id, a.identifier]));
  // Oldest first, so a diff of two exports shows additions at the end.
  return {
    gatehouse_export: EXPORT_FORMAT,
    gatehouse_version: VERSION,
    exported_at: clock().toISOString(),
    applications: applications.reverse().map((a) => ({
      identifier: a.identifier,
      name: a.name,
      environment: a.environment,
    })),
    resources: resources.reverse().map((r) => ({ audience: r.audience, name: r.name, scopes: r.scopes })),
    clients: clients.reverse().map((c) => ({
      client_id: c.client_id,
      application: identifierOf.get(c.application_id) ?? c.application_id,
      name: c.name,
      kind: c.kind,
      redirect_uris: c.redirect_uris,
      post_logout_redirect_uris: c.post_logout_redirect_uris,
      scopes: c.scopes,
      audiences: c.audiences,
      first_party: c.first_party,
      token_endpoint_auth_method: c.token_endpoint_auth_method,
      jwks: c.jwks,
      jwks_uri: c.jwks_uri,
      dpop_bound_access_tokens: c.dpop_bound_access_tokens,
      require_pushed_authorization_requests: c.require_pushed_authorization_requests,
      backchannel_logout_uri: c.backchannel_logout_uri,
      backchannel_logout_session_required: c.backchannel_logout_session_required,
      token_exchange_audiences: c.token_exchange_audiences,
      device_authorization_grant: c.device_authorization_grant,
    })),
  };
}

export type RegistryExport = Awaited<ReturnType<typeof exportRegistry>>;
