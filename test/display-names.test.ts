// Every route that takes a name shown to people (application, client and resource names; display names at sign-up
// and in the profile) refuses bidirectional controls and other invisible characters with 400 invalid_request naming
// the field, for each character in the table, and stores nothing (src/http/display-text.ts).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JSON_HEADERS, makeAccount } from './helpers/accounts.ts';
import { type AdminResponse, adminCaller, assertAdminError, registrySnapshot } from './helpers/admin-api.ts';
import { startTestApp } from './helpers/app.ts';
import { HIDDEN_CHARACTERS, hex, hiddenProblem } from './helpers/hidden-characters.ts';
import { startMailbox } from './helpers/mailbox.ts';
import { makeAdmin, makeSession } from './helpers/oauth-fixtures.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });
const admin = await makeAdmin(t);
const call = adminCaller(t, admin.cookie);

const application = await call('POST', '/admin/applications', {
  identifier: 'billing',
  name: 'Billing',
  environment: 'production',
});
const client = await call('POST', '/admin/clients', {
  application_id: application.json.id,
  name: 'Billing web',
  kind: 'web',
  redirect_uris: ['https://billing.example.test/cb'],
  scopes: ['openid'],
});
const resource = await call('POST', '/admin/resources', {
  audience: 'https://billing.example.test/api',
  name: 'Billing API',
  scopes: ['billing:read'],
});
const person = await makeAccount(t.sql, t.secrets, config, { email: 'ines@acme-robotics.dev' });
const { cookie } = await makeSession(t, person.sub);

/** A route that takes a name: sends `name` in its field, answers as the admin caller does. */
interface NameRoute {
  route: string;
  field: string;
  send(name: string): Promise<AdminResponse>;
}

const account = async (method: 'POST' | 'PATCH', url: string, payload: object, withCookie = '') => {
  const response = await t.app.inject({
    method,
    url,
    headers: { ...JSON_HEADERS, ...(withCookie ? { cookie: withCookie } : {}) },
    payload,
  });
  return { status: response.statusCode, json: response.json(), headers: response.headers };
};

let signups = 0;
const routes: NameRoute[] = [
  {
    route: 'POST /admin/applications',
    field: 'body.name',
    send: (name) => call('POST', '/admin/applications', { identifier: 'other', name, environment: 'production' }),
  },
  {
    route: 'PATCH /admin/applications/:id',
    field: 'body.name',
    send: (name) => call('PATCH', `/admin/applications/${application.json.id}`, { name }),
  },
  {
    route: 'POST /admin/clients',
    field: 'body.name',
    send: (name) =>
      call('POST', '/admin/clients', {
        application_id: application.json.id,
        name,
        kind: 'browser',
        redirect_uris: ['https://billing.example.test/spa'],
        scopes: ['openid'],
      }),
  },
  {
    route: 'PATCH /admin/clients/:id',
    field: 'body.name',
    send: (name) => call('PATCH', `/admin/clients/${client.json.client_id}`, { name }),
  },
  {
    route: 'POST /admin/resources',
    field: 'body.name',
    send: (name) =>
      call('POST', '/admin/resources', { audience: 'https://other.example.test/', name, scopes: ['other:read'] }),
  },
  {
    route: 'PATCH /admin/resources/:id',
    field: 'body.name',
    send: (name) => call('PATCH', `/admin/resources/${resource.json.id}`, { name }),
  },
  {
    route: 'POST /account/signup',
    field: 'body.display_name',
    send: (name) => {
      signups += 1;
      return account('POST', '/account/signup', {
        email: `newcomer${signups}@acme-robotics.dev`,
        password: 'lantern orchard quietly 47',
        display_name: name,
      });
    },
  },
  {
    route: 'PATCH /account/profile',
    field: 'body.display_name',
    send: (name) => account('PATCH', '/account/profile', { display_name: name }, cookie),
  },
];

/** What a refused request must leave as it was: the registry, the audit records, identities and the profile. */
async function everything() {
  const identities = await t.sql`select id, display_name, state from identities order by id`;
  const outbox = await t.sql`select count(*)::int as n from outbox_messages`;
  return { registry: await registrySnapshot(t), identities: [...identities], outbox: outbox[0]?.n };
}

for (const { route, field, send } of routes) {
  describe(route, () => {
    test(`refuses every bidi control, format and control character in ${field} with invalid_request`, async () => {
      const before = await everything();
      for (const code of HIDDEN_CHARACTERS) {
        const name = `Acme ${String.fromCodePoint(code)}Billing`;
        const problem = hiddenProblem(code);
        const response = await send(name);
        assert.equal(response.status, 400, `${hex(code)}: ${JSON.stringify(response.json)}`);
        assertAdminError(response, 400, 'invalid_request', `Name: ${problem}.`, [{ path: field, problem }]);
      }
      assert.deepEqual(await everything(), before, 'nothing stored, nothing audited, nothing sent');
    });

    test(`refuses a ${field} of spaces only and accepts one in a right-to-left script`, async () => {
      const problem = 'enter at least one visible character';
      assertAdminError(await send('   '), 400, 'invalid_request', `Name: ${problem}.`, [{ path: field, problem }]);
      const accepted = await send('محمد علي');
      assert.ok(accepted.status === 200 || accepted.status === 201, JSON.stringify(accepted.json));
    });
  });
}
