// The console's browser tests start alike: an app whose organization "acme" exists, its owner (ial2, with TOTP), and
// an admin API caller holding the owner's aal2 session, for registering the records the browser then works with.
import type { Config } from '../../src/config/schema.ts';
import { makeAccount, sessionCookieFor } from './accounts.ts';
import { adminCaller } from './admin-api.ts';
import { startBrowserApp } from './browser-app.ts';
import { makeConfig } from './config.ts';

export async function startConsoleApp(
  config: Config = makeConfig({ organization: { id: 'acme', name: 'Acme', owner_subject: '' } }),
) {
  const t = await startBrowserApp(config);
  // An app configured with an owner subject has made the organization already (its owner bootstrap).
  await t.sql`insert into organizations (id, name) values ('acme', 'Acme') on conflict do nothing`;
  const owner = await makeAccount(t.sql, t.secrets, t.config, {
    email: 'owner@acme-robotics.dev',
    roles: ['owner'],
    assurance: 'ial2',
    organizationId: 'acme',
  });
  const call = adminCaller(t, await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: t.clock.now() }), t.url);
  return { t, owner, call };
}
