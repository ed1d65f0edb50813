// What users, export and import share: the configuration, the secrets and the database, opened for the admin
// operations (src/operations/operator.ts) and closed afterwards.
import type { Actor, AdminDeps } from '../admin/context.ts';
import { loadSecrets } from '../crypto/secret-files.ts';
import { operatorActor, operatorDeps } from '../operations/operator.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';

export interface ConnectionArgs {
  configPath: string | undefined;
  databaseUrl: string | undefined;
}

/** The connection from a command's parsed --config and --database-url. */
export const connectionOf = (values: { config?: string; 'database-url'?: string }): ConnectionArgs => ({
  configPath: values.config,
  databaseUrl: values['database-url'],
});

export async function withOperator<T>(
  connection: ConnectionArgs,
  work: (deps: AdminDeps, actor: Actor) => Promise<T>,
): Promise<T> {
  const { config } = loadCommandConfig({ configPath: connection.configPath }, { needsInstance: true });
  const secrets = loadSecrets(config.secrets.dir);
  return withDatabase(chooseDatabaseUrl(connection.databaseUrl, config.database.url), config.data.dir, (sql) =>
    work(operatorDeps(sql, config, secrets), operatorActor()),
  );
}
