// What a node checks and prepares once before its workers start: the secret files (generated for a development
// instance), then the database (src/prepare-database.ts). Run by the supervisor itself when it owns an embedded
// PostgreSQL, else by its short-lived preparation process (src/prepare-in-child.ts).
import type { Logger } from 'pino';
import type { LoadedConfig } from './config/load.ts';
import { generateSecretFiles, loadSecrets } from './crypto/secret-files.ts';
import { type PreparedDatabase, prepareDatabase } from './prepare-database.ts';

export async function prepareHere(loaded: LoadedConfig, log: Pick<Logger, 'info' | 'warn'>): Promise<PreparedDatabase> {
  if (loaded.development) generateSecretFiles(loaded.config.secrets.dir);
  // Checked here too, so a bad secrets directory is one clear error instead of one per worker.
  loadSecrets(loaded.config.secrets.dir);
  return prepareDatabase(loaded, log, { bootstrap: true });
}
