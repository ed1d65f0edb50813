// `gatehouse doctor` lines for `[ldap.<id>]`: per directory, the secret file and CA bundle load, then a connection
// the way the configuration says (ldaps://, StartTLS or plain on loopback), the service account's bind and one
// search of user_search_base (probeDirectory) must all succeed. Each line names the transport, so a failure is not
// blamed on TLS that was never asked for.
import type { Config } from '../../config/schema.ts';
import { type Check, check } from '../../delivery/check.ts';
import { DirectoryUnavailable, loadDirectories, probeDirectory } from './directory.ts';
import { directoryTransport, transportWords } from './transport.ts';

export async function directoryChecks(config: Config): Promise<Check[]> {
  const checks: Check[] = [];
  for (const [id, settings] of Object.entries(config.ldap)) {
    const name = `ldap.${id}`;
    const how = transportWords[directoryTransport(settings)];
    try {
      const [directory] = loadDirectories({ ...config, ldap: { [id]: settings } });
      if (directory) await probeDirectory(directory);
      checks.push(check('ok', name, `connected ${how}, service account bound, user_search_base searched`));
    } catch (error) {
      const tried = error instanceof DirectoryUnavailable ? `; tried ${how}` : '';
      checks.push(check('fail', name, `${(error as Error).message}${tried}`));
    }
  }
  return checks;
}
