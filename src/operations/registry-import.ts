// `gatehouse import <file>`: the applications, resources and clients of a `gatehouse export` document, created
// through the admin API's own functions (same validation, same audit records). Idempotent: an entry that already
// exists with the same fields is left alone, so an import can be re-run. An entry that exists with different fields
// is a conflict, and any conflict or invalid entry refuses the whole import before anything changes. Clients keep
// their client_id; a confidential client gets a NEW secret, returned once (docs/decisions.md "Export and import").

import { createApplication, listApplications } from '../admin/applications.ts';
import { createClient, getClient } from '../admin/clients.ts';
import type { Actor, AdminDeps } from '../admin/context.ts';
import { createResource, listResources } from '../admin/resources.ts';
import { ApplicationCreate, ClientCreate, ResourceCreate } from '../admin/schemas.ts';
import type { ClientId } from '../clients/ids.ts';
import { NotFound } from '../http/errors.ts';
import { Type } from '../schema/type.ts';
import { OperationRefused } from './errors.ts';
import { EXPORT_FORMAT } from './registry-export.ts';
import { assertFits, schemaProblems } from './validate-input.ts';

const ImportDocument = Type.Object(
  {
    gatehouse_export: Type.Literal(EXPORT_FORMAT),
    gatehouse_version: Type.Optional(Type.String({ maxLength: 64 })),
    exported_at: Type.Optional(Type.String({ maxLength: 64 })),
    applications: Type.Optional(Type.Array(ApplicationCreate, { maxItems: 10000 })),
    resources: Type.Optional(Type.Array(ResourceCreate, { maxItems: 10000 })),
    clients: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 10000 })),
  },
  { additionalProperties: false },
);

const CLIENT_ID = /^cli_[A-Za-z0-9_-]{1,64}$/;

type ApplicationEntry = { identifier: string; name: string; environment: 'development' | 'staging' | 'production' };
type ResourceEntry = { audience: string; name: string; scopes: string[] };
type ClientEntry = Record<string, unknown> & { client_id: string; application: string };

export interface ImportReport {
  created: string[];
  unchanged: string[];
  /** New secrets of the confidential clients created: shown once, never stored in clear. */
  secrets: { client_id: string; client_secret: string }[];
}

const differ = (fields: string[]) => `${fields.join(', ')} ${fields.length === 1 ? 'differs' : 'differ'}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const unique = (values: unknown) => (Array.isArray(values) ? [...new Set(values)] : values);

function differing(entry: Record<string, unknown>, existing: Record<string, unknown>, fields: string[]): string[] {
  return fields.filter((f) => entry[f] !== undefined && !same(unique(entry[f]), existing[f]));
}

async function allPages<T>(page: (cursor?: string) => Promise<{ items: T[]; next: string | null }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const r = await page(cursor);
    all.push(...r.items);
    cursor = r.next ?? undefined;
  } while (cursor);
  return all;
}

/** Checks the document's shape and each client against ClientCreate; returns the entries, typed. */
function parseDocument(document: unknown) {
  const problems = schemaProblems(ImportDocument, document, 'document');
  if (problems.length > 0)
    throw new OperationRefused(
      `not a Gatehouse export document: ${problems.map((p) => `${p.path} ${p.problem}`).join('; ')}`,
    );
  const doc = document as { applications?: ApplicationEntry[]; resources?: ResourceEntry[]; clients?: ClientEntry[] };
  const clients = doc.clients ?? [];
  clients.forEach((entry, index) => {
    const { client_id, application, ...body } = entry;
    if (typeof client_id !== 'string' || !CLIENT_ID.test(client_id))
      throw new OperationRefused(`clients.${index}.client_id must look like cli_…`);
    if (typeof application !== 'string')
      throw new OperationRefused(`clients.${index}.application must name an application's identifier`);
    assertFits(ClientCreate, { ...body, application_id: application }, `clients.${index}`);
  });
  return { applications: doc.applications ?? [], resources: doc.resources ?? [], clients };
}

function refuseDuplicates(kind: string, keys: string[]) {
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key)) throw new OperationRefused(`the document lists ${kind} ${key} twice`);
    seen.add(key);
  }
}

export async function importRegistry(
  deps: AdminDeps,
  actor: Actor,
  document: unknown,
  options: { dryRun?: boolean } = {},
): Promise<ImportReport> {
  const entries = parseDocument(document);
  refuseDuplicates(
    'application',
    entries.applications.map((a) => a.identifier),
  );
  refuseDuplicates(
    'resource',
    entries.resources.map((r) => r.audience),
  );
  refuseDuplicates(
    'client',
    entries.clients.map((c) => c.client_id),
  );

  const applications = new Map(
    (
      await allPages(async (cursor) => {
        const r = await listApplications(deps, { limit: '100', ...(cursor ? { cursor } : {}) });
        return { items: r.applications, next: r.next_cursor };
      })
    ).map((a) => [a.identifier, a]),
  );
  const resources = new Map(
    (
      await allPages(async (cursor) => {
        const r = await listResources(deps, { limit: '100', ...(cursor ? { cursor } : {}) });
        return { items: r.resources, next: r.next_cursor };
      })
    ).map((r) => [r.audience, r]),
  );
  const identifierOf = new Map([...applications.values()].map((a) => [a.id, a.identifier]));
  const conflicts: string[] = [];
  const report: ImportReport = { created: [], unchanged: [], secrets: [] };
  const plan = {
    applications: [] as ApplicationEntry[],
    resources: [] as ResourceEntry[],
    clients: [] as ClientEntry[],
  };

  for (const a of entries.applications) {
    const existing = applications.get(a.identifier);
    if (!existing) plan.applications.push(a);
    else {
      const fields = differing(a, existing, ['name', 'environment']);
      if (fields.length > 0) conflicts.push(`application ${a.identifier}: ${differ(fields)}`);
      else report.unchanged.push(`application ${a.identifier}`);
    }
  }
  for (const r of entries.resources) {
    const existing = resources.get(r.audience);
    if (!existing) plan.resources.push(r);
    else {
      const fields = differing(r, existing, ['name', 'scopes']);
      if (fields.length > 0) conflicts.push(`resource ${r.audience}: ${differ(fields)}`);
      else report.unchanged.push(`resource ${r.audience}`);
    }
  }
  const arriving = new Set(plan.applications.map((a) => a.identifier));
  for (const c of entries.clients) {
    if (!applications.has(c.application) && !arriving.has(c.application)) {
      conflicts.push(`client ${c.client_id}: application ${c.application} is neither in the document nor installed`);
      continue;
    }
    const existing = await getClient(deps, c.client_id).catch((error: unknown) => {
      if (error instanceof NotFound) return null;
      throw error;
    });
    if (!existing) {
      plan.clients.push(c);
      continue;
    }
    const { client_id: _id, application, ...fields } = c;
    const changed = differing(fields, existing, Object.keys(fields));
    if (identifierOf.get(existing.application_id) !== application) changed.unshift('application');
    if (changed.length > 0) conflicts.push(`client ${c.client_id}: ${differ(changed)}`);
    else report.unchanged.push(`client ${c.client_id}`);
  }
  if (conflicts.length > 0)
    throw new OperationRefused(
      `nothing was imported: ${conflicts.length} entries conflict with this installation:\n  ${conflicts.join('\n  ')}\n` +
        'Change them here (admin API or console) or in the document, then import again.',
    );
  if (options.dryRun) {
    report.created = [
      ...plan.applications.map((a) => `application ${a.identifier}`),
      ...plan.resources.map((r) => `resource ${r.audience}`),
      ...plan.clients.map((c) => `client ${c.client_id}`),
    ];
    return report;
  }

  for (const a of plan.applications) {
    const created = await createApplication(deps, actor, a);
    applications.set(a.identifier, created);
    report.created.push(`application ${a.identifier}`);
  }
  for (const r of plan.resources) {
    await createResource(deps, actor, r);
    report.created.push(`resource ${r.audience}`);
  }
  for (const c of plan.clients) {
    const { client_id, application, ...body } = c;
    const input = { ...body, application_id: applications.get(application)?.id } as Parameters<typeof createClient>[2];
    const created = await createClient(deps, actor, input, { id: client_id as ClientId });
    if ('client_secret' in created) report.secrets.push({ client_id, client_secret: created.client_secret });
    report.created.push(`client ${client_id}`);
  }
  return report;
}
