// `gatehouse export` and `gatehouse import` as the operator runs them, between two real databases: the registry
// moves over without a secret, clients keep their ids, confidential ones get a new secret shown once, a re-run
// changes nothing, and a conflict or an invalid entry refuses the whole document.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createApplication } from '../../src/admin/applications.ts';
import { createClient } from '../../src/admin/clients.ts';
import { createResource } from '../../src/admin/resources.ts';
import { loadSecrets } from '../../src/crypto/secret-files.ts';
import { clientSecretHmac } from '../../src/oauth/client-secret.ts';
import { operatorActor, operatorDeps } from '../../src/operations/operator.ts';
import { runCli, writeCliConfig } from '../helpers/cli.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';

async function installation() {
  const db = await createTestDatabase();
  const configFile = writeCliConfig();
  const secrets = loadSecrets(path.join(path.dirname(configFile), 'secrets'));
  const cli = (...args: string[]) => runCli([...args, '--config', configFile, '--database-url', db.url]);
  return { db, secrets, cli };
}

async function filledSource() {
  const source = await installation();
  const deps = operatorDeps(source.db.sql, makeConfig(), source.secrets);
  const actor = operatorActor();
  const app = await createApplication(deps, actor, { identifier: 'shop', name: 'Shop', environment: 'production' });
  await createResource(deps, actor, { audience: 'https://api.shop.test/', name: 'Shop API', scopes: ['orders:read'] });
  const web = await createClient(deps, actor, {
    application_id: app.id,
    name: 'Shop web',
    kind: 'web',
    redirect_uris: ['https://shop.test/callback'],
    scopes: ['openid', 'orders:read'],
    audiences: ['https://api.shop.test/'],
  });
  const native = await createClient(deps, actor, {
    application_id: app.id,
    name: 'Shop app',
    kind: 'native',
    redirect_uris: ['http://127.0.0.1/callback'],
    scopes: ['openid'],
  });
  return { ...source, web, native };
}

function documentFile(document: unknown): string {
  const file = path.join(scratchDir('gatehouse-export-'), 'registry.json');
  writeFileSync(file, JSON.stringify(document));
  return file;
}

describe('gatehouse export and import', () => {
  test('moves applications, resources and clients without secrets; clients keep their ids; a re-run changes nothing', async () => {
    const source = await filledSource();
    const exported = await source.cli('export');
    assert.equal(exported.code, 0, exported.stderr);
    assert.doesNotMatch(exported.stdout, /secret"|client_secret\b|secret_hmac/);
    const document = JSON.parse(exported.stdout);
    assert.deepEqual(document.applications, [{ identifier: 'shop', name: 'Shop', environment: 'production' }]);
    assert.deepEqual(document.resources, [
      { audience: 'https://api.shop.test/', name: 'Shop API', scopes: ['orders:read'] },
    ]);
    assert.deepEqual(
      document.clients.map((c: { client_id: string; application: string; kind: string }) => [
        c.client_id,
        c.application,
        c.kind,
      ]),
      [
        [source.web.client_id, 'shop', 'web'],
        [source.native.client_id, 'shop', 'native'],
      ],
    );

    const target = await installation();
    const file = documentFile(document);
    const imported = await target.cli('import', file);
    assert.equal(imported.code, 0, imported.stderr);
    const secretLine = new RegExp(`^ {2}${source.web.client_id} {2}(\\S+)$`, 'm').exec(imported.stdout);
    assert.ok(secretLine?.[1], imported.stdout);
    assert.equal(
      imported.stdout.replace(secretLine[1], 'SECRET'),
      [
        'Created application shop',
        'Created resource https://api.shop.test/',
        `Created client ${source.web.client_id}`,
        `Created client ${source.native.client_id}`,
        'New client secrets (shown once, not stored in clear; give each to its application):',
        `  ${source.web.client_id}  SECRET`,
        '',
      ].join('\n'),
    );
    assert.notEqual(secretLine[1], 'client_secret' in source.web ? source.web.client_secret : '');
    const [stored] = await target.db.sql`select secret_hmac from oauth_clients where id = ${source.web.client_id}`;
    assert.equal(stored?.secret_hmac, clientSecretHmac(target.secrets.clientSecret, secretLine[1]));

    const reexported = JSON.parse((await target.cli('export')).stdout);
    assert.deepEqual(reexported.clients, document.clients);

    const again = await target.cli('import', file);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(
      again.stdout,
      [
        'Unchanged application shop',
        'Unchanged resource https://api.shop.test/',
        `Unchanged client ${source.web.client_id}`,
        `Unchanged client ${source.native.client_id}`,
        '',
      ].join('\n'),
    );
    const [audit] = await target.db.sql`
      select count(*)::int as n from (
        select event from audit_events where event like 'client.created'
        union all select event from audit_pending where event like 'client.created') e`;
    assert.equal(audit?.n, 2, 'each client created once, audited like the admin API');
  });

  test('a conflicting entry refuses the whole document and names what differs', async () => {
    const source = await filledSource();
    const document = JSON.parse((await source.cli('export')).stdout);
    document.applications[0].name = 'Shop (renamed)';
    document.resources.push({ audience: 'https://new.shop.test/', name: 'New', scopes: ['x'] });
    const refused = await source.cli('import', documentFile(document));
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr,
      'gatehouse import: nothing was imported: 1 entries conflict with this installation:\n' +
        '  application shop: name differs\n' +
        'Change them here (admin API or console) or in the document, then import again.\n',
    );
    const [created] = await source.db
      .sql`select count(*)::int as n from oauth_resources where audience = 'https://new.shop.test/'`;
    assert.equal(created?.n, 0);
  });

  test('an entry the admin API would refuse is refused with its words, before anything is created', async () => {
    const target = await installation();
    const document = {
      gatehouse_export: 1,
      applications: [{ identifier: 'shop', name: 'Shop', environment: 'production' }],
      clients: [
        { client_id: 'cli_abc', application: 'shop', name: 'X', kind: 'web', scopes: ['openid'], colour: 'red' },
      ],
    };
    const refused = await target.cli('import', documentFile(document));
    assert.equal(refused.code, 65);
    assert.equal(refused.stderr, 'gatehouse import: invalid_request: Colour: is not a known field.\n');
    const [apps] = await target.db.sql`select count(*)::int as n from oauth_applications`;
    assert.equal(apps?.n, 0);

    const notExport = await target.cli('import', documentFile({ applications: [] }));
    assert.equal(notExport.code, 1);
    assert.match(
      notExport.stderr,
      /^gatehouse import: not a Gatehouse export document: document\.gatehouse_export is required/,
    );
    const broken = path.join(scratchDir('gatehouse-export-'), 'broken.json');
    writeFileSync(broken, '{');
    const notJson = await target.cli('import', broken);
    assert.equal(notJson.code, 1);
    assert.match(notJson.stderr, /^gatehouse import: .*broken\.json is not JSON: /);
  });
});
