// gateway.token_exchange_client_id must name a confidential client allowed every exchange_audience of the route
// policies; until an administrator registers and allows it, the start logs it and `gatehouse doctor` fails on it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { withDatabase } from '../../src/cli/database.ts';
import { runDoctor } from '../../src/cli/doctor.ts';
import type { LoadedConfig } from '../../src/config/load.ts';
import type { Config } from '../../src/config/schema.ts';
import { generateSecretFiles } from '../../src/crypto/secret-files.ts';
import { prepareDatabase } from '../../src/prepare-database.ts';
import { policy } from '../gateway/fixtures.ts';
import { testSecrets } from '../helpers/app.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeClient, makeResource } from '../helpers/oauth-fixtures.ts';

const APP = 'https://app.acme.test/';
const BILLING = 'https://billing.acme.test/';
const GATEWAY_CLIENT = 'cli_gateway-under-test';

describe('gateway.token_exchange_client_id against the registered clients', async () => {
  const database = await createTestDatabase();
  const secretsDir = path.join(scratchDir(), 'secrets');
  generateSecretFiles(secretsDir);
  await makeResource(database.sql, APP, ['app:read']);
  await makeResource(database.sql, BILLING, ['billing:read']);
  const config: Config = makeConfig({
    database: { url: database.url },
    secrets: { dir: secretsDir },
    gateway: { enabled: true, token_exchange_client_id: GATEWAY_CLIENT },
    auth: {
      enabled: true,
      organization_id: 'acme',
      route_policies: [
        policy({ path_prefix: '/app/billing', required_audience: APP, exchange_audience: BILLING }),
        policy({ path_prefix: '/app/other', required_audience: APP }),
      ],
    },
  });
  const loaded: LoadedConfig = { config, file: '/etc/gatehouse/gatehouse.toml', development: false, deferred: [] };
  const noDns = {
    resolveMx: () => Promise.reject(new Error('no DNS')),
    resolveTxt: () => Promise.reject(new Error('no DNS')),
    resolve4: () => Promise.reject(new Error('no DNS')),
    reverse: () => Promise.reject(new Error('no DNS')),
  };
  const exchangeLines = async () =>
    (await runDoctor(loaded, { resolver: noDns, withDatabase, checkTimeoutMs: 1000 })).filter(
      (c) => c.name === 'token exchange',
    );
  const missing = `gateway.token_exchange_client_id = ${GATEWAY_CLIENT} names no registered client (POST /admin/clients)`;

  test('the start warns while the client is not registered', async () => {
    const warnings: Array<{ fields: unknown; message: string }> = [];
    const log = {
      info() {},
      warn: (fields: unknown, message: string) => void warnings.push({ fields, message }),
    } as unknown as Parameters<typeof prepareDatabase>[1];
    const prepared = await prepareDatabase(loaded, log, { bootstrap: false });
    await prepared.sql.end();
    assert.deepEqual(warnings, [
      {
        fields: { key: 'gateway.token_exchange_client_id' },
        message: `${missing}: routes with exchange_audience answer 403 token_exchange_refused until it is fixed`,
      },
    ]);
  });

  test('doctor fails until the client is registered and allowed the audience, then says ok', async () => {
    assert.deepEqual(await exchangeLines(), [{ status: 'fail', name: 'token exchange', detail: missing }]);
    const { client } = await makeClient(database.sql, testSecrets().clientSecret, {
      kind: 'service',
      audiences: [APP],
      scopes: ['app:read'],
    });
    await database.sql`update oauth_clients set id = ${GATEWAY_CLIENT} where id = ${client.id}`;
    assert.deepEqual(await exchangeLines(), [
      {
        status: 'fail',
        name: 'token exchange',
        detail: `gateway.token_exchange_client_id = ${GATEWAY_CLIENT} is not allowed token exchange for ${BILLING} (token_exchange_audiences)`,
      },
    ]);
    await database.sql`update oauth_clients set token_exchange_audiences = ${[BILLING]} where id = ${GATEWAY_CLIENT}`;
    assert.deepEqual(await exchangeLines(), [
      {
        status: 'ok',
        name: 'token exchange',
        detail: `gateway.token_exchange_client_id = ${GATEWAY_CLIENT}, allowed ${BILLING}`,
      },
    ]);
  });
});
