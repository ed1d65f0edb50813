// `gatehouse keys rotate`: adds a new RSA-2048 signing key (sealed in the database, so every node sees it); the
// current key is retired and stays in the JWKS until every token it signed has expired. `gatehouse keys list`
// shows the set.

import type { Config } from '../config/schema.ts';
import { loadSecrets, type Secrets } from '../crypto/secret-files.ts';
import type { Sql } from '../db/pool.ts';
import { Keyring } from '../oauth/keyring.ts';
import { type Command, parseFlags, UsageError } from './args.ts';
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

export const keysCommand: Command = {
  summary: 'keys rotate | keys list: add a new OIDC signing key, or list the published ones.',
  async run(args) {
    const { values, positionals } = parseFlags(args, {
      config: { type: 'string' },
      'database-url': { type: 'string' },
    });
    const action = positionals[0];
    if (action !== 'rotate' && action !== 'list')
      throw new UsageError('Usage: gatehouse keys rotate|list [--config FILE]');
    const { config } = loadCommandConfig({ configPath: values.config }, { needsInstance: true });
    const secrets = loadSecrets(config.secrets.dir);
    await withDatabase(chooseDatabaseUrl(values['database-url'], config.database.url), config.data.dir, async (sql) => {
      if (action === 'rotate') {
        const kid = await rotateSigningKey(sql, secrets, config);
        process.stdout.write(
          `Added signing key ${kid}; every node signs with it within a second (within 30 seconds where tokens.state_cache_seconds is 0).\n`,
        );
        return;
      }
      const keyring = keyringFor(sql, secrets, config, () => new Date());
      const signing = await keyring.signingKey();
      for (const key of await keyring.verificationKeys())
        process.stdout.write(
          `${key.kid}  ${key.kid === signing.kid ? 'signing' : key.retiredAt ? `retired ${key.retiredAt.toISOString()}` : 'active'}\n`,
        );
    });
    return 0;
  },
};
