// `gatehouse config <section>`: change one section of the configuration file. SPEC.md: "Before a config edit
// it backs up the configuration and restores the previous file if the affected service cannot recover." For
// delivery that means: validate, back up, write, then check the new delivery (relay login, webhook answers,
// DKIM key readable) and put the previous file back when the check fails, unless --force.

import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { keepBackup, replaceFile, restoreBackup } from '../config/config-files.ts';
import { parseConfig } from '../config/load.ts';
import { editedToml } from '../config/toml-edit.ts';
import { loadSecrets } from '../crypto/secret-files.ts';
import { formatCheck } from '../delivery/check.ts';
import { deliveryChecks } from '../delivery/doctor-checks.ts';
import { webhookSecret } from '../delivery/keys.ts';
import { type CommandInput, type OptionValues, UsageError } from './args.ts';
import { configFileToEdit, editInEditor, parseOptionsOf, restartOptions, restartOrRollBack } from './config-edit.ts';
import { type ConfigIo, processIo } from './config-io.ts';
import type { DELIVERY_OPTIONS } from './options.ts';

type Values = OptionValues<typeof DELIVERY_OPTIONS>;
type Table = Record<string, unknown>;

export type { ConfigIo } from './config-io.ts';

const integer = (flag: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number`);
  return Number(value);
};

/** Where `config delivery` keeps the relay password: this name inside secrets.dir, mode 0600. */
export const SMTP_PASSWORD_FILE = 'smtp-password';

/**
 * The relay password to store, if any: from --smtp-password-file or stdin, else a password an earlier version kept
 * inline in the TOML (delivery.smtp.password), which moves to the secrets directory on this edit.
 */
async function newSmtpPassword(current: Table, values: Values, io: ConfigIo): Promise<string | undefined> {
  if (values['smtp-password-file']) return readFileSync(values['smtp-password-file'], 'utf8').replace(/\r?\n$/, '');
  if (values['smtp-password-stdin']) return (await io.readStdin()).replace(/\r?\n$/, '');
  const inline = (current.smtp as Table | undefined)?.password;
  return typeof inline === 'string' ? inline : undefined;
}

/** The delivery table after applying the flags; keys without a flag keep their current value. */
function deliveryTable(current: Table, values: Values, password: string | undefined): Table {
  const section = (base: unknown, entries: Record<string, unknown>) => {
    const defined = Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
    return { ...((base as Table | undefined) ?? {}), ...defined };
  };
  // An inline password never survives an edit: newSmtpPassword moved it into the secrets directory.
  const { password: _inline, ...smtp } = (current.smtp as Table | undefined) ?? {};
  const top = Object.fromEntries(
    Object.entries({ kind: values.kind, from: values.from }).filter(([, v]) => v !== undefined),
  );
  return {
    ...current,
    ...top,
    smtp: section(smtp, {
      host: values['smtp-host'],
      port: integer('smtp-port', values['smtp-port']),
      security: values['smtp-security'],
      username: values['smtp-username'],
      password_file: password === undefined ? undefined : SMTP_PASSWORD_FILE,
      ca_file: values['smtp-ca-file'],
    }),
    direct_mx: section(current.direct_mx, {
      helo_name: values['helo-name'],
      dkim_domain: values['dkim-domain'],
      dkim_selector: values['dkim-selector'],
      dkim_private_key_file: values['dkim-private-key-file'],
    }),
    webhook: section(current.webhook, {
      url: values['webhook-url'],
      timeout_seconds: integer('webhook-timeout', values['webhook-timeout']),
      ca_file: values['webhook-ca-file'],
    }),
  };
}

/**
 * Writes `value` to `name` in the secrets directory (a new file: the directory's owner and group, 0600; a replaced
 * one keeps its own), keeping a copy of any earlier file among the config backups. The returned function ends the
 * edit: `restore` true puts the earlier file back (or removes the new one), false removes the earlier copy, so no
 * stale password stays behind.
 */
function storeSecret(configFile: string, dir: string, name: string, value: string, now: Date) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const target = path.join(dir, name);
  const aside = existsSync(target) ? keepBackup(configFile, target, now) : null;
  replaceFile(target, value);
  return (restore: boolean) => {
    if (restore && aside) restoreBackup(aside, target);
    else if (restore) rmSync(target, { force: true });
    else if (aside) rmSync(aside, { force: true });
  };
}

/** Checks whose failure means the new delivery cannot send; the DNS report is advice to act on later. */
const GATING = new Set(['smtp', 'webhook', 'dkim key']);

export async function runConfigDelivery(values: Values, io: ConfigIo): Promise<number> {
  const file = configFileToEdit(values.config);
  const previous = readFileSync(file, 'utf8');
  const options = parseOptionsOf(file);

  if (values['show-webhook-secret']) {
    const { config } = parseConfig(previous, file, options);
    io.write(`${webhookSecret(loadSecrets(config.secrets.dir).delivery)}\n`);
    return 0;
  }

  const raw = parse(previous) as Table;
  const saved = (raw.delivery as Table | undefined) ?? {};
  const current = values.edit ? editInEditor(saved, 'delivery', io) : saved;
  const password = await newSmtpPassword(current, values, io);
  raw.delivery = deliveryTable(current, values, password);
  const text = editedToml(previous, raw);
  const loaded = parseConfig(text, file, options); // throws ConfigError: nothing written

  const backup = keepBackup(file, file, io.now());
  const restorePassword =
    password === undefined
      ? () => {}
      : storeSecret(file, loaded.config.secrets.dir, SMTP_PASSWORD_FILE, password, io.now());
  replaceFile(file, text);
  io.write(`Wrote ${file} (previous configuration saved as ${backup}).\n`);
  if (password !== undefined)
    io.write(`Stored the relay password in ${path.join(loaded.config.secrets.dir, SMTP_PASSWORD_FILE)} (mode 0600).\n`);

  const checks = await deliveryChecks(loaded.config, { resolver: io.resolver });
  io.write(`${checks.map(formatCheck).join('\n')}\n`);
  const broken = checks.some((c) => c.status === 'fail' && GATING.has(c.name));
  if (broken && !values.force) {
    restoreBackup(backup, file);
    restorePassword(true);
    io.write(`The new delivery does not work: restored the previous configuration. Use --force to keep it anyway.\n`);
    return 1;
  }
  if (broken) io.write('Kept the new configuration although its check failed (--force).\n');
  const code = await restartOrRollBack(
    file,
    backup,
    loaded,
    io,
    restartOptions(values, 'Restart the service to use the new delivery settings'),
    () => restorePassword(true),
  );
  if (code === 0) restorePassword(false);
  return code;
}

/** `gatehouse config delivery`. */
export const configDelivery = ({ values }: CommandInput<Values>) => runConfigDelivery(values, processIo());
