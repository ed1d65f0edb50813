// `gatehouse keys rotate`: adds a new RSA-2048 signing key (sealed in the database, so every node sees it); the
// current key is retired and stays in the JWKS until every token it signed has expired. `gatehouse keys list`
// shows the set.

import { createAudit } from '../audit/audit.ts';
import type { Config } from '../config/schema.ts';
import { loadSecrets, type Secrets } from '../crypto/secret-files.ts';
import type { Sql } from '../db/pool.ts';
import { Keyring } from '../oauth/keyring.ts';
import { operatorActor } from '../operations/operator.ts';
import type { CommandInput } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';

/** The keyring every command builds from the configuration and secrets (keys, doctor). */
export function keyringFor(sql: Sql, secrets: Secrets, config: Config, clock: () => Date): Keyring {
  return new Keyring({
    sql,
    initialPem: secrets.oidcSigningKey,
    sealKey: secrets.signing,
    clock,
    maxTokenLifetimeSeconds: Math.max(config.tokens.access_token_ttl_seconds, config.tokens.id_token_ttl_seconds),
  });
}

/** Adds a signing key and returns its kid. */
export async function rotateSigningKey(
  sql: Sql,
  secrets: Secrets,
  config: Config,
  clock: () => Date = () => new Date(),
) {
  return keyringFor(sql, secrets, config, clock).rotate();
}

type KeysValues = { config?: string; 'database-url'?: string; json?: boolean };

function withKeys<T>(values: KeysValues, work: (sql: Sql, secrets: Secrets, config: Config) => Promise<T>): Promise<T> {
  const { config } = loadCommandConfig({ configPath: values.config }, { needsInstance: true });
  const secrets = loadSecrets(config.secrets.dir);
  const url = chooseDatabaseUrl(values['database-url'], config.database.url);
  return withDatabase(url, config.data.dir, (sql) => work(sql, secrets, config));
}

/** `gatehouse keys rotate`: audited as the operator at the host, as the shell's other administrative changes are. */
export async function rotateKeys({ values }: CommandInput<KeysValues>): Promise<number> {
  const kid = await withKeys(values, async (sql, secrets, config) => {
    const added = await rotateSigningKey(sql, secrets, config);
    const operator = operatorActor();
    await createAudit(sql, secrets.audit).record({
      event: 'signing_key.rotated',
      actor: operator.sub,
      subject: added,
      clientIp: operator.clientIp,
      requestId: operator.requestId,
    });
    return added;
  });
  process.stdout.write(
    `Added signing key ${kid}; every node signs with it within a second (within 30 seconds where tokens.state_cache_seconds is 0).\n`,
  );
  return 0;
}

/** `gatehouse keys list`: one line per published key, or --json. */
export async function listKeys({ values }: CommandInput<KeysValues>): Promise<number> {
  const keys = await withKeys(values, async (sql, secrets, config) => {
    const keyring = keyringFor(sql, secrets, config, () => new Date());
    const signing = await keyring.signingKey();
    return (await keyring.verificationKeys()).map((key) => ({
      kid: key.kid,
      state: key.kid === signing.kid ? 'signing' : key.retiredAt ? 'retired' : 'active',
      created_at: key.createdAt.getTime() === 0 ? null : key.createdAt.toISOString(),
      retired_at: key.retiredAt?.toISOString() ?? null,
    }));
  });
  if (values.json) process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
  else
    for (const key of keys)
      process.stdout.write(`${key.kid}  ${key.state === 'retired' ? `retired ${key.retired_at}` : key.state}\n`);
  return 0;
}
