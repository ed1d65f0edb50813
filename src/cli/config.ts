// `gatehouse config <section>`: change one section of the configuration file. SPEC.md: "Before a config edit
// it backs up the configuration and restores the previous file if the affected service cannot recover." For
// delivery that means: validate, back up, write, then check the new delivery (relay login, webhook answers,
// DKIM key readable) and put the previous file back when the check fails, unless --force.

import { promises as dns } from 'node:dns';
import { copyFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { parseConfig, resolveConfigPath } from '../config/load.ts';
import { loadSecrets } from '../crypto/secret-files.ts';
import { formatCheck } from '../delivery/check.ts';
import type { DnsResolver } from '../delivery/dns-report.ts';
import { deliveryChecks } from '../delivery/doctor-checks.ts';
import { webhookSecret } from '../delivery/keys.ts';
import { type Command, parseFlags, UsageError } from './args.ts';

const DELIVERY_FLAGS = {
  config: { type: 'string' },
  kind: { type: 'string' },
  from: { type: 'string' },
  'smtp-host': { type: 'string' },
  'smtp-port': { type: 'string' },
  'smtp-security': { type: 'string' },
  'smtp-username': { type: 'string' },
  // Passwords never go on the command line, where `ps` and shell history would show them.
  'smtp-password-file': { type: 'string' },
  'smtp-password-stdin': { type: 'boolean' },
  'smtp-ca-file': { type: 'string' },
  'helo-name': { type: 'string' },
  'dkim-domain': { type: 'string' },
  'dkim-selector': { type: 'string' },
  'dkim-private-key-file': { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-timeout': { type: 'string' },
  'webhook-ca-file': { type: 'string' },
  force: { type: 'boolean' },
  'show-webhook-secret': { type: 'boolean' },
} as const;

type Values = ReturnType<typeof parseFlags<typeof DELIVERY_FLAGS>>['values'];
type Table = Record<string, unknown>;

export interface ConfigIo {
  write(text: string): void;
  readStdin(): Promise<string>;
  resolver: DnsResolver;
  now(): Date;
}

const integer = (flag: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number`);
  return Number(value);
};

/** The delivery table after applying the flags; keys without a flag keep their current value. */
async function deliveryTable(current: Table, values: Values, io: ConfigIo): Promise<Table> {
  const password = values['smtp-password-file']
    ? readFileSync(values['smtp-password-file'], 'utf8').replace(/\r?\n$/, '')
    : values['smtp-password-stdin']
      ? (await io.readStdin()).replace(/\r?\n$/, '')
      : undefined;
  const section = (name: string, entries: Record<string, unknown>) => {
    const defined = Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
    return { ...((current[name] as Table | undefined) ?? {}), ...defined };
  };
  const top = Object.fromEntries(
    Object.entries({ kind: values.kind, from: values.from }).filter(([, v]) => v !== undefined),
  );
  return {
    ...current,
    ...top,
    smtp: section('smtp', {
      host: values['smtp-host'],
      port: integer('smtp-port', values['smtp-port']),
      security: values['smtp-security'],
      username: values['smtp-username'],
      password,
      ca_file: values['smtp-ca-file'],
    }),
    direct_mx: section('direct_mx', {
      helo_name: values['helo-name'],
      dkim_domain: values['dkim-domain'],
      dkim_selector: values['dkim-selector'],
      dkim_private_key_file: values['dkim-private-key-file'],
    }),
    webhook: section('webhook', {
      url: values['webhook-url'],
      timeout_seconds: integer('webhook-timeout', values['webhook-timeout']),
      ca_file: values['webhook-ca-file'],
    }),
  };
}

/** Checks whose failure means the new delivery cannot send; the DNS report is advice to act on later. */
const GATING = new Set(['smtp', 'webhook', 'dkim key']);

export async function runConfigDelivery(args: string[], io: ConfigIo): Promise<number> {
  const { values } = parseFlags(args, DELIVERY_FLAGS);
  const file = resolveConfigPath({ configPath: values.config });
  if (file === null) throw new UsageError('No configuration file: run `gatehouse setup` first or pass --config FILE');
  const previous = readFileSync(file, 'utf8');
  const options = { baseDir: path.dirname(file), development: false, env: {} };

  if (values['show-webhook-secret']) {
    const { config } = parseConfig(previous, file, options);
    io.write(`${webhookSecret(loadSecrets(config.secrets.dir).delivery)}\n`);
    return 0;
  }

  const raw = parse(previous) as Table;
  raw.delivery = await deliveryTable((raw.delivery as Table | undefined) ?? {}, values, io);
  const text = `${stringify(raw)}\n`;
  const loaded = parseConfig(text, file, options); // throws ConfigError: nothing written

  const backup = `${file}.bak-${io.now().toISOString().replace(/[:.]/g, '-')}`;
  copyFileSync(file, backup);
  const temporary = `${file}.tmp-${process.pid}`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, file);
  io.write(`Wrote ${file} (previous configuration saved as ${backup}).\n`);

  const checks = await deliveryChecks(loaded.config, { resolver: io.resolver });
  io.write(`${checks.map(formatCheck).join('\n')}\n`);
  const broken = checks.some((c) => c.status === 'fail' && GATING.has(c.name));
  if (broken && !values.force) {
    copyFileSync(backup, file);
    io.write(`The new delivery does not work: restored the previous configuration. Use --force to keep it anyway.\n`);
    return 1;
  }
  io.write(
    broken
      ? 'Kept the new configuration although its check failed (--force).\n'
      : 'Restart the service to use the new delivery settings.\n',
  );
  return 0;
}

const SECTIONS: Record<string, (args: string[]) => Promise<number>> = {
  delivery: (args) =>
    runConfigDelivery(args, {
      write: (text) => process.stdout.write(text),
      readStdin: async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks).toString('utf8');
      },
      resolver: new dns.Resolver(),
      now: () => new Date(),
    }),
};

export const configCommand: Command = {
  summary: 'Change a configuration section with a backup and a check: `config delivery --kind smtp ...`.',
  async run(args) {
    const [section, ...rest] = args;
    const run = section ? SECTIONS[section] : undefined;
    if (!run) throw new UsageError(`Usage: gatehouse config <${Object.keys(SECTIONS).join('|')}> [options]`);
    return run(rest);
  },
};
