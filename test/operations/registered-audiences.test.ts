// A route policy's required_audience that names no registered resource refuses every request it covers: the start
// logs it and `gatehouse doctor` fails on it, until the resource is registered.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { withDatabase } from '../../src/cli/database.ts';
import { runDoctor } from '../../src/cli/doctor.ts';
import type { LoadedConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { generateSecretFiles } from '../../src/crypto/secret-files.ts';
import { prepareDatabase } from '../../src/prepare-database.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeResource } from '../helpers/oauth-fixtures.ts';

const ORDERS = 'https://orders.acme.test/';
const REPORTS = 'https://api.acme.test/reports';

describe('auth.route_policies required_audience against the registered resources', async () => {
  const database = await createTestDatabase();
  const secretsDir = path.join(scratchDir(), 'secrets');
  generateSecretFiles(secretsDir);
  const config: Config = makeConfig({
    database: { url: database.url },
    secrets: { dir: secretsDir },
    gateway: { enabled: true },
    auth: {
      enabled: true,
      organization_id: 'acme',
      route_policies: [
        { path_prefix: '/app/orders', methods: ['GET'], required_audience: ORDERS },
        { path_prefix: '/app/reports', methods: ['GET'], required_audience: REPORTS },
        // The service's own audience: never a registered resource, never reported.
        { path_prefix: '/app/profile', methods: ['GET'], required_audience: 'http://localhost:8080' },
      ],
    },
  } as Partial<Config>);
  const loaded: LoadedConfig = { config, file: '/etc/gatehouse/gatehouse.toml', development: false, deferred: [] };
  const noDns = {
    resolveMx: () => Promise.reject(new Error('no DNS')),
    resolveTxt: () => Promise.reject(new Error('no DNS')),
    resolve4: () => Promise.reject(new Error('no DNS')),
    reverse: () => Promise.reject(new Error('no DNS')),
  };
  const audienceLines = async () =>
    (await runDoctor(loaded, { resolver: noDns, withDatabase, checkTimeoutMs: 1000 })).filter(
      (c) => c.name === 'audiences',
    );

  test('the start warns about each required_audience no resource carries', async () => {
    await makeResource(database.sql, ORDERS);
    const warnings: Array<{ fields: unknown; message: string }> = [];
    const log = {
      info() {},
      warn: (fields: unknown, message: string) => void warnings.push({ fields, message }),
    } as unknown as Parameters<typeof prepareDatabase>[1];
    const prepared = await prepareDatabase(loaded, log, { bootstrap: false });
    await prepared.sql.end();
    assert.deepEqual(warnings, [
      {
        fields: { key: 'auth.route_policies[1].required_audience', audience: REPORTS },
        message:
          'auth.route_policies[1].required_audience names no registered resource: every request under this policy is refused until it is registered (POST /admin/resources)',
      },
    ]);
  });

  test('doctor fails on it, and is ok once the resource is registered', async () => {
    assert.deepEqual(await audienceLines(), [
      {
        status: 'fail',
        name: 'audiences',
        detail: `auth.route_policies[1].required_audience = ${REPORTS} names no registered resource: every request under this policy is refused until it is registered (POST /admin/resources)`,
      },
    ]);
    await makeResource(database.sql, REPORTS);
    assert.deepEqual(await audienceLines(), [
      {
        status: 'ok',
        name: 'audiences',
        detail: '2 required_audience/exchange_audience value(s), each a registered resource',
      },
    ]);
  });
});
