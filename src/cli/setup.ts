// `gatehouse setup`: identity domain, organization name and id, initial owner subject → config file, secret files,
// migrated database and the bootstrap organization/owner. Safe to rerun: secrets are never overwritten, and when the
// database already holds an installation it is authoritative (SPEC.md "Incomplete setup rerun").
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/errors.ts';
import { issuerListenerMismatch } from '../config/issuer-listener.ts';
import { parseListen } from '../config/listen-address.ts';
import { DEFAULT_CONFIG_PATH, loadConfig } from '../config/load.ts';
import { isReservedHostname } from '../config/placeholders.ts';
import { databaseUrlProblem } from '../config/validate.ts';
import { renderSetupConfig, writeSetupConfig } from '../config/write.ts';
import { generateSecretFiles } from '../crypto/secret-files.ts';
import { migrate } from '../db/migrate.ts';
import { redactDatabaseUrl } from '../db/pool.ts';
import { displayTextProblem } from '../http/display-text.ts';
import { ensureBootstrap, markSetupCompleted } from '../identity/bootstrap.ts';
import { issueFirstEnrollmentLink } from '../login/local/enrollment-link.ts';
import { type CommandInput, type OptionValues, UsageError } from './args.ts';
import { runConfigDelivery } from './config.ts';
import { type ConfigIo, processIo } from './config-io.ts';
import { runConfigProviders } from './config-providers.ts';
import { withDatabase } from './database.ts';
import { enrollmentNotice, OWNER_ENROLLED_NOTICE } from './enrollment-notice.ts';
import { provisionLocalPostgres } from './local-postgres.ts';
import type { SETUP_OPTIONS } from './options.ts';
import { askMissing, processTerminal, type Question, type Terminal } from './prompts.ts';

type SetupValues = OptionValues<typeof SETUP_OPTIONS>;

/** What is wrong with a domain answer, or null: `id.example.com`, or `localhost:8080` for development. */
function domainProblem(domain: string): string | null {
  return /^[a-z0-9.-]+(:\d{1,5})?$/i.test(domain) ? null : 'must be a host name, e.g. id.example.com';
}

const orgIdProblem = (id: string) =>
  /^[a-z0-9][a-z0-9._-]{0,62}$/.test(id)
    ? null
    : 'must be 1-63 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit';
// Shown in every message and on hosted pages: the same rule as names set through the API.
const orgNameProblem = (name: string) => (name.trim() ? displayTextProblem(name) : 'must not be empty');
const ownerProblem = (owner: string) =>
  /^[^\s@]+@[^\s@]+$/.test(owner) && owner.length <= 254 ? null : 'must be an email address';
// Only for typed answers: a path typed at a prompt that names no file is most likely a typo. Flags are not checked,
// so automation may write the config before the certificate is issued.
const fileProblem = (file: string) =>
  file === '' ? 'is required' : existsSync(file) ? null : `no such file: ${path.resolve(file)}`;

/** Domains that name this machine; config validation allows plain http only for them. */
const LOOPBACK_DOMAINS = new Set(['localhost', '127.0.0.1']);

const QUESTIONS: Question[] = [
  { key: 'domain', text: 'Identity domain (e.g. id.example.com)', problem: domainProblem },
  { key: 'org-name', text: 'Organization name', problem: orgNameProblem },
  { key: 'org-id', text: 'Organization ID (stable, e.g. acme)', problem: orgIdProblem },
  { key: 'owner', text: 'Initial owner subject (email address)', problem: ownerProblem },
];

const DATABASE_URL_QUESTION: Question = {
  key: 'database-url',
  text: 'PostgreSQL URL (postgres://user:password@host:5432/name)',
  problem: (url) => databaseUrlProblem(url) ?? (url === '' ? 'is required' : null),
};

/** A valid URL in the shape the local database will have, to validate the config before creating it. */
const LOCAL_URL_STAND_IN = 'postgres://gatehouse@127.0.0.1:5432/gatehouse';

const TLS_QUESTIONS: Question[] = [
  { key: 'tls-cert', text: 'TLS certificate chain (PEM file)', problem: fileProblem },
  { key: 'tls-key', text: 'TLS private key (PEM file)', problem: fileProblem },
];

/**
 * `id.example.com` → https://id.example.com (a reverse proxy or the ACME listener serves it). A loopback name is
 * plain http on this machine with nothing in between, so it takes the listener's port unless the domain names one:
 * `localhost` with `--listen 127.0.0.1:8081` → http://localhost:8081; `localhost:8080` → http://localhost:8080.
 */
export function issuerForDomain(domain: string, listen: string): string {
  const problem = domainProblem(domain);
  if (problem) throw new UsageError(`--domain "${domain}" ${problem}`);
  const name = domain.toLowerCase();
  const [host = name, explicitPort] = name.split(':');
  if (!LOOPBACK_DOMAINS.has(host)) return `https://${name}`;
  const port = explicitPort ?? String(parseListen(listen)?.port ?? 80);
  return port === '80' || port === '0' ? `http://${host}` : `http://${host}:${port}`;
}

function checkSetupAnswers(answers: Record<string, string | undefined>): void {
  const problems: [string, string | null][] = [
    ['--org-id', orgIdProblem(answers['org-id'] ?? '')],
    ['--org-name', orgNameProblem(answers['org-name'] ?? '')],
    ['--owner', ownerProblem(answers.owner ?? '')],
  ];
  for (const [flag, problem] of problems) if (problem) throw new UsageError(`${flag} ${problem}`);
}

/** Config keys setup's flags set, so a refusal names the flag the operator typed. */
const FLAG_FOR_KEY: Record<string, string> = {
  'server.listen': '--listen',
  'database.url': '--database-url',
  'tls.cert_file': '--tls-cert',
  'tls.key_file': '--tls-key',
};

function refuseInvalidConfig(render: () => void): void {
  try {
    render();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const named = error.problems.map((p) => `${FLAG_FOR_KEY[p.key] ?? p.key}: ${p.problem}`);
    throw new UsageError(`the configuration would be invalid: ${named.join('; ')}`);
  }
}

/** `--tls files` needs a certificate and key: taken from flags, the previous config, or asked on a terminal. */
async function askTlsFiles(
  answers: Record<string, string | undefined>,
  previous: { cert_file: string; key_file: string } | undefined,
  terminal: Terminal,
): Promise<void> {
  answers['tls-cert'] ??= previous?.cert_file || undefined;
  answers['tls-key'] ??= previous?.key_file || undefined;
  // Without a terminal the config validation below names what is missing.
  if (terminal.interactive) await askMissing(terminal, TLS_QUESTIONS, answers);
}

/** The setup command with its terminal passed in, so tests can answer the prompts. */
export async function runSetup(values: SetupValues, terminal: Terminal): Promise<number> {
  const answers: Record<string, string | undefined> = {
    domain: values.domain,
    'org-name': values['org-name'],
    'org-id': values['org-id'],
    owner: values.owner,
    'tls-cert': values['tls-cert'],
    'tls-key': values['tls-key'],
  };
  const missing = QUESTIONS.filter(({ key }) => !answers[key]);
  if (missing.length > 0 && !terminal.interactive)
    throw new UsageError(`Missing ${missing.map(({ key }) => `--${key}`).join(', ')} (no terminal to ask on)`);
  await askMissing(terminal, QUESTIONS, answers);
  const configFile = path.resolve(values.config ?? process.env.GATEHOUSE_CONFIG ?? DEFAULT_CONFIG_PATH);
  const configDir = path.dirname(configFile);
  const previous = existsSync(configFile) ? loadConfig({ configPath: configFile, env: {} }).config : null;

  const domain = answers.domain ?? '';
  checkSetupAnswers(answers);
  const tls =
    values.tls ?? previous?.tls.mode ?? (isReservedHostname(domain.split(':')[0] ?? '') ? 'external' : 'acme');
  if (!['acme', 'files', 'external'].includes(tls)) throw new UsageError('--tls must be acme, files or external');
  // acme and files serve HTTPS themselves, so they listen publicly on 443; external stays behind its proxy.
  const listen = values.listen ?? previous?.server.listen ?? (tls === 'external' ? '127.0.0.1:8080' : '[::]:443');
  const issuer = issuerForDomain(domain, listen);
  const secretsDir = path.resolve(values['secrets-dir'] ?? previous?.secrets.dir ?? path.join(configDir, 'secrets'));
  const dataDir = path.resolve(values['data-dir'] ?? previous?.data.dir ?? path.join(configDir, 'data'));
  const database = values.database;
  if (database === 'local' && values['database-url'])
    throw new UsageError('--database local creates its own database: leave out --database-url');
  if (database === 'external' && !values['database-url'] && !previous?.database.url) {
    if (!terminal.interactive) throw new UsageError('--database external needs --database-url postgres://...');
    await askMissing(terminal, [DATABASE_URL_QUESTION], answers);
  }
  let databaseUrl =
    database === 'embedded' ? '' : (values['database-url'] ?? answers['database-url'] ?? previous?.database.url ?? '');
  if (tls === 'files') await askTlsFiles(answers, previous?.tls, terminal);

  const keysFor = (organization: { id: string; name: string; owner_subject: string }) => ({
    server: { issuer, listen },
    // Validated with a stand-in until the local database exists; the real URL is written.
    database: { url: database === 'local' && databaseUrl === '' ? LOCAL_URL_STAND_IN : databaseUrl },
    data: { dir: dataDir },
    secrets: { dir: secretsDir },
    organization,
    tls: {
      mode: tls,
      ...(answers['tls-cert'] ? { cert_file: path.resolve(answers['tls-cert']) } : {}),
      ...(answers['tls-key'] ? { key_file: path.resolve(answers['tls-key']) } : {}),
    },
  });
  // The whole would-be config is validated before any side effect: a refused answer (listen address, database
  // URL scheme, TLS files) leaves no secret file and touches no database.
  refuseInvalidConfig(() =>
    renderSetupConfig(
      configFile,
      keysFor({ id: answers['org-id'] ?? '', name: answers['org-name'] ?? '', owner_subject: answers.owner ?? '' }),
    ),
  );

  const localSteps: string[] = [];
  if (database === 'local') {
    const local = await provisionLocalPostgres(values['database-name'] ?? 'gatehouse', (line) =>
      terminal.prompts.write(`${line}\n`),
    );
    databaseUrl = local.url;
    localSteps.push(...local.steps);
  }
  const secrets = generateSecretFiles(secretsDir);
  const installation = await withDatabase(databaseUrl, dataDir, async (sql) => {
    await migrate(sql);
    return await ensureBootstrap(sql, {
      organizationId: answers['org-id'] ?? '',
      organizationName: answers['org-name'] ?? '',
      ownerSubject: answers.owner ?? '',
    });
  });

  const { backup } = writeSetupConfig(
    configFile,
    keysFor({
      id: installation.organizationId,
      name: installation.organizationName,
      owner_subject: installation.ownerSubject,
    }),
  );
  const link = await withDatabase(databaseUrl, dataDir, async (sql) => {
    await markSetupCompleted(sql);
    return await issueFirstEnrollmentLink(sql, installation.ownerId, issuer);
  });

  const lines = [
    ...localSteps,
    `Configuration written to ${configFile}${backup ? ` (previous file kept as ${backup})` : ''}`,
    `Secret files in ${secretsDir}: ${secrets.created.length} created, ${secrets.kept.length} kept`,
    `Issuer: ${issuer}   TLS: ${tls}`,
    `Database: ${databaseUrl === '' ? 'embedded (evaluation only)' : redactDatabaseUrl(databaseUrl)}`,
  ];
  const mismatch = tls === 'external' ? issuerListenerMismatch(issuer, listen) : null;
  if (mismatch) lines.push(`Warning: ${mismatch}`);
  if (installation.created)
    lines.push(`Created organization ${installation.organizationId} with initial owner ${installation.ownerSubject}`);
  else
    lines.push(
      `The database already has organization ${installation.organizationId} and owner ${installation.ownerSubject}: kept them (the database is authoritative; nothing about the owner was recreated)`,
    );
  lines.push(link ? enrollmentNotice(link) : OWNER_ENROLLED_NOTICE);
  terminal.output.write(`${lines.join('\n')}\n`);
  return configureExtras(configFile, values, terminal);
}

/** How setup names a delivery kind: a heading with its meaning, so it never ends in a bare kind and a colon. */
const DELIVERY_NAMES: Record<string, string> = {
  smtp: 'SMTP relay (smtp)',
  direct_mx: "direct delivery to the recipients' mail servers (direct_mx)",
  webhook: 'HTTPS webhook (webhook)',
  dev_mailbox: 'development mailbox (dev_mailbox): messages are kept for the console and the terminal, not sent',
  none: 'none: nothing can be sent, so sign-up and recovery are refused',
};

/**
 * --delivery and --provider, once the configuration exists: through `config delivery` and `config providers`, which
 * validate, store the secrets in their files, check the relay or webhook (discovery for a provider) and put the
 * previous file back when the check fails. Setup then exits 1 and says so; the rest of setup stays done.
 */
async function configureExtras(configFile: string, values: SetupValues, terminal: Terminal): Promise<number> {
  if (!values.delivery && !values.provider) return 0;
  const io: ConfigIo = { ...processIo(), write: (text) => terminal.output.write(text) };
  let code = 0;
  if (values.delivery) {
    terminal.output.write(`Message delivery: ${DELIVERY_NAMES[values.delivery] ?? values.delivery}\n`);
    code ||= await runConfigDelivery(
      {
        config: configFile,
        kind: values.delivery,
        from: values['delivery-from'],
        'smtp-host': values['smtp-host'],
        'smtp-port': values['smtp-port'],
        'smtp-username': values['smtp-username'],
        'smtp-password-file': values['smtp-password-file'],
        'webhook-url': values['webhook-url'],
        'no-restart': true,
      },
      io,
    );
  }
  if (values.provider) {
    terminal.output.write(`Sign-in provider: ${values.provider}\n`);
    code ||= await runConfigProviders(
      {
        config: configFile,
        provider: values.provider,
        enable: true,
        'client-id': values['client-id'],
        'client-secret-file': values['client-secret-file'],
        'no-restart': true,
      },
      io,
    );
  }
  return code;
}

export const setup = ({ values }: CommandInput<SetupValues>) => runSetup(values, processTerminal());
