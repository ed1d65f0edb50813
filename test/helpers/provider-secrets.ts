// A secrets directory holding provider secret files (provider-<id>.secret, mode 0600), for configs that enable
// redirect providers. The app's own secrets come from testSecrets(); only provider files are read from here.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { scratchDir } from './config.ts';

/** Keys are provider ids (provider-<id>.secret), or a file name as it is when it has a dot (provider-apple.p8). */
export function providerSecretsDir(secrets: Record<string, string>, mode = 0o600): string {
  const dir = path.join(scratchDir('gatehouse-provider-secrets-'), 'secrets');
  mkdirSync(dir, { mode: 0o700 });
  for (const [id, value] of Object.entries(secrets)) {
    const file = path.join(dir, id.includes('.') ? id : `provider-${id}.secret`);
    writeFileSync(file, `${value}\n`, { mode });
    chmodSync(file, mode);
  }
  return dir;
}
