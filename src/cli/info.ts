import { redactDatabaseUrl } from '../db/pool.ts';
import { DEV_MAILBOX_NOTE } from '../delivery/status.ts';
import { VERSION } from '../version.ts';
import type { CommandInput } from './args.ts';
import { loadCommandConfig } from './development-instance.ts';

/** `gatehouse info`: the version and what the configuration says, as lines or --json. */
export async function info({ values }: CommandInput<{ config?: string; json?: boolean }>): Promise<number> {
  const loaded = loadCommandConfig({ configPath: values.config });
  const { config } = loaded;
  const database = config.database.url === '' ? '(embedded, evaluation only)' : redactDatabaseUrl(config.database.url);
  if (values.json) {
    const data = {
      version: VERSION,
      config: loaded.file,
      issuer: config.server.issuer,
      listen: config.server.listen,
      trusted_proxy: config.server.trusted_proxy,
      database,
      organization: { id: config.organization.id, name: config.organization.name },
      secrets_dir: config.secrets.dir,
      delivery: config.delivery.kind,
      self_service: config.self_service.enabled,
      tls: config.tls.mode,
      development: loaded.development
        ? { running: loaded.instance ? { pid: loaded.instance.pid, listen: loaded.instance.listen } : null }
        : null,
      deferred: loaded.deferred,
    };
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    return 0;
  }
  const lines = [
    `gatehouse ${VERSION}`,
    `config:       ${loaded.file ?? '(none: development defaults)'}`,
    `issuer:       ${config.server.issuer}`,
    `listen:       ${config.server.listen}${config.server.trusted_proxy ? ' (trusted proxy)' : ''}`,
    `database:     ${database}`,
    `organization: ${config.organization.id} (${config.organization.name})`,
    `secrets:      ${config.secrets.dir}`,
    `delivery:     ${config.delivery.kind === 'dev_mailbox' ? DEV_MAILBOX_NOTE : config.delivery.kind}`,
    `self-service: ${config.self_service.enabled ? 'on' : 'off'}`,
    `tls:          ${config.tls.mode}`,
    ...(loaded.development
      ? [
          `development:  ${loaded.instance ? `running (pid ${loaded.instance.pid}) on ${loaded.instance.listen}` : 'not running in this directory'}`,
        ]
      : []),
    ...loaded.deferred.map((d) => `deferred:     ${d.key}: ${d.reason}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
