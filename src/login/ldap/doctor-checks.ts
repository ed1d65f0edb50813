// `gatehouse doctor` lines for `[ldap.<id>]`: per directory, the secret file and CA bundle load, then a connection
// with TLS, the service account's bind and one search of user_search_base (probeDirectory) must all succeed.
import type { Config } from '../../config/schema.ts';
import { type Check, check } from '../../delivery/check.ts';
import { loadDirectories, probeDirectory } from './directory.ts';

export async function directoryChecks(config: Config): Promise<Check[]> {
  const checks: Check[] = [];
  for (const id of Object.keys(config.ldap)) {
    const name = `ldap.${id}`;
    try {
      const [directory] = loadDirectories({ ...config, ldap: { [id]: config.ldap[id] as Config['ldap'][string] } });
      if (directory) await probeDirectory(directory);
      checks.push(check('ok', name, 'connected with TLS, service account bound, user_search_base searched'));
    } catch (error) {
      checks.push(check('fail', name, (error as Error).message));
    }
  }
  return checks;
}
