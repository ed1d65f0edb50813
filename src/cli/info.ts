import { redactDatabaseUrl } from '../db/pool.ts';
import { DEV_MAILBOX_NOTE } from '../delivery/status.ts';
import { VERSION } from '../version.ts';
import { type Command, parseFlags } from './args.ts';
import { loadCommandConfig } from './development-instance.ts';

export const infoCommand: Command = {
  summary: 'Print the version and the effective configuration summary (no secrets).',
  async run(args) {
    const { values } = parseFlags(args, { config: { type: 'string' } });
    const loaded = loadCommandConfig({ configPath: values.config });
    const { config } = loaded;
    const lines = [
      `gatehouse ${VERSION}`,
      `config:       ${loaded.file ?? '(none: development defaults)'}`,
      `issuer:       ${config.server.issuer}`,
      `listen:       ${config.server.listen}${config.server.trusted_proxy ? ' (trusted proxy)' : ''}`,
      `database:     ${config.database.url === '' ? '(embedded, evaluation only)' : redactDatabaseUrl(config.database.url)}`,
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
  },
};
