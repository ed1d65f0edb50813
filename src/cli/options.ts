// The option tables of the commands with many options. Data only: commands.ts declares them for parsing and
// `--help`, and the module doing the work imports their type (OptionValues<typeof X>), never the other way round.
import { CONFIG_OPTION, DATABASE_URL_OPTION, JSON_OPTION, type OptionSpecs } from './args.ts';

/** How a `config` command opens its section and restarts the service afterwards. */
export const SAVE_OPTIONS = {
  edit: { type: 'boolean', description: 'open the section in $VISUAL or $EDITOR (vi when neither is set)' },
  'no-restart': { type: 'boolean', description: 'save only; do not restart the service' },
  timeout: {
    type: 'string',
    value: 'SECONDS',
    description:
      'how long the restarted service has to answer /health/ready before the previous file is put back (default 60)',
  },
} as const satisfies OptionSpecs;

export const SETUP_OPTIONS = {
  config: { ...CONFIG_OPTION, description: 'where to write the configuration (default /etc/gatehouse/gatehouse.toml)' },
  domain: { type: 'string', value: 'HOST', description: 'identity domain, e.g. id.example.com (asked when missing)' },
  'org-name': { type: 'string', value: 'NAME', description: 'organization name (asked when missing)' },
  'org-id': { type: 'string', value: 'ID', description: 'stable organization id, e.g. acme (asked when missing)' },
  owner: { type: 'string', value: 'EMAIL', description: 'initial owner subject (asked when missing)' },
  database: {
    type: 'string',
    value: 'CHOICE',
    choices: ['local', 'external', 'embedded'],
    description:
      "local: install PostgreSQL from the distribution's packages (apt) and create a database; external: use --database-url; embedded: evaluation only",
  },
  'database-url': DATABASE_URL_OPTION,
  'database-name': {
    type: 'string',
    value: 'NAME',
    description: 'with --database local: the role and database to create (default gatehouse)',
  },
  'secrets-dir': { type: 'string', value: 'DIR', description: 'secret files (default: secrets/ beside the config)' },
  'data-dir': { type: 'string', value: 'DIR', description: 'local state (default: data/ beside the config)' },
  tls: {
    type: 'string',
    value: 'MODE',
    choices: ['acme', 'files', 'external'],
    description: 'how HTTPS is terminated (default: acme for a public name, external otherwise)',
  },
  'tls-cert': { type: 'string', value: 'FILE', description: 'PEM certificate chain for --tls files' },
  'tls-key': { type: 'string', value: 'FILE', description: 'PEM private key for --tls files' },
  listen: { type: 'string', value: 'ADDR', description: 'listener, e.g. 127.0.0.1:8080 or [::]:443' },
  delivery: {
    type: 'string',
    value: 'KIND',
    choices: ['smtp', 'direct_mx', 'webhook', 'dev_mailbox', 'none'],
    description: 'how verification messages leave; set and checked as `gatehouse config delivery` does',
  },
  'delivery-from': { type: 'string', value: 'ADDRESS', description: 'sender address of verification messages' },
  'smtp-host': { type: 'string', value: 'HOST', description: '--delivery smtp: relay host' },
  'smtp-port': { type: 'string', value: 'PORT', description: '--delivery smtp: relay port' },
  'smtp-username': { type: 'string', value: 'NAME', description: '--delivery smtp: relay user name' },
  'smtp-password-file': {
    type: 'string',
    value: 'FILE',
    description: '--delivery smtp: read the relay password from FILE',
  },
  'webhook-url': { type: 'string', value: 'URL', description: '--delivery webhook: endpoint' },
  provider: {
    type: 'string',
    value: 'ID',
    description: 'enable a sign-in provider (google, github, ...); more with `gatehouse config providers` afterwards',
  },
  'client-id': { type: 'string', value: 'ID', description: '--provider: client id registered at the provider' },
  'client-secret-file': { type: 'string', value: 'FILE', description: '--provider: read the client secret from FILE' },
} as const satisfies OptionSpecs;

export const DELIVERY_OPTIONS = {
  config: CONFIG_OPTION,
  kind: { type: 'string', value: 'KIND', description: 'smtp, direct_mx, webhook or dev_mailbox' },
  from: { type: 'string', value: 'ADDRESS', description: 'sender address' },
  'smtp-host': { type: 'string', value: 'HOST', description: 'relay host' },
  'smtp-port': { type: 'string', value: 'PORT', description: 'relay port' },
  'smtp-security': { type: 'string', value: 'MODE', description: 'relay connection security' },
  'smtp-username': { type: 'string', value: 'NAME', description: 'relay user name' },
  // Passwords never go on the command line, where `ps` and shell history would show them.
  'smtp-password-file': { type: 'string', value: 'FILE', description: 'read the relay password from FILE' },
  'smtp-password-stdin': { type: 'boolean', description: 'read the relay password from stdin' },
  'smtp-ca-file': { type: 'string', value: 'FILE', description: 'CA certificate(s) to trust for the relay' },
  'helo-name': { type: 'string', value: 'HOST', description: 'direct_mx: HELO name' },
  'dkim-domain': { type: 'string', value: 'DOMAIN', description: 'direct_mx: DKIM signing domain' },
  'dkim-selector': { type: 'string', value: 'NAME', description: 'direct_mx: DKIM selector' },
  'dkim-private-key-file': { type: 'string', value: 'FILE', description: 'direct_mx: DKIM private key' },
  'webhook-url': { type: 'string', value: 'URL', description: 'webhook endpoint' },
  'webhook-timeout': { type: 'string', value: 'SECONDS', description: 'webhook timeout' },
  'webhook-ca-file': { type: 'string', value: 'FILE', description: 'CA certificate(s) to trust for the webhook' },
  force: { type: 'boolean', description: 'keep the new settings even when their check fails' },
  'show-webhook-secret': { type: 'boolean', description: 'print the webhook signing secret and exit' },
  ...SAVE_OPTIONS,
} as const satisfies OptionSpecs;

export const PROVIDERS_OPTIONS = {
  config: CONFIG_OPTION,
  provider: {
    type: 'string',
    value: 'ID',
    description:
      'google, github, gitlab, microsoft, apple, discord, slack, ethereum, farcaster, or the id of an OpenID Connect provider',
  },
  enable: { type: 'boolean', description: 'turn the provider on' },
  disable: { type: 'boolean', description: 'turn the provider off' },
  name: { type: 'string', value: 'NAME', description: 'display name (generic OpenID Connect provider)' },
  issuer: { type: 'string', value: 'URL', description: 'issuer URL' },
  'client-id': { type: 'string', value: 'ID', description: 'client id registered at the provider' },
  'client-secret-file': {
    type: 'string',
    value: 'FILE',
    description: 'read the client secret (Apple: .p8 key) from FILE',
  },
  'client-secret-stdin': { type: 'boolean', description: 'read the client secret from stdin' },
  'team-id': { type: 'string', value: 'ID', description: 'apple: team id' },
  'key-id': { type: 'string', value: 'ID', description: 'apple: key id' },
  'trust-upstream-mfa': {
    type: 'string',
    value: 'BOOL',
    choices: ['true', 'false'],
    description: 'accept the provider’s MFA claim',
  },
  force: { type: 'boolean', description: 'keep the new settings even when discovery fails' },
  ...SAVE_OPTIONS,
} as const satisfies OptionSpecs;

/** Where the commands working on an installation's database find it. */
const CONNECTION_OPTIONS = {
  config: CONFIG_OPTION,
  'database-url': DATABASE_URL_OPTION,
} as const satisfies OptionSpecs;

export const BACKUP_OPTIONS = CONNECTION_OPTIONS;

export const RESTORE_OPTIONS = {
  force: {
    type: 'boolean',
    description: "restore a backup whose schema is not this release's (an older one is migrated forward)",
  },
  ...CONNECTION_OPTIONS,
} as const satisfies OptionSpecs;

export const USERS_LIST_OPTIONS = {
  search: {
    type: 'string',
    value: 'TEXT',
    description: 'only the identity with sub TEXT, an email address starting with it, or a name containing it',
  },
  limit: { type: 'string', value: 'N', default: '100', description: 'at most N identities, newest first' },
  json: JSON_OPTION,
  ...CONNECTION_OPTIONS,
} as const satisfies OptionSpecs;

export const USERS_INVITE_OPTIONS = {
  name: { type: 'string', value: 'NAME', description: 'display name' },
  role: {
    type: 'string',
    value: 'ROLE',
    multiple: true,
    description: 'a role in the organization (repeatable; default member)',
  },
  json: JSON_OPTION,
  ...CONNECTION_OPTIONS,
} as const satisfies OptionSpecs;

export const USERS_TARGET_OPTIONS = CONNECTION_OPTIONS;

export const UPDATE_OPTIONS = {
  from: {
    type: 'string',
    value: 'URL|DIR',
    description: 'the release location install.sh uses (default $GATEHOUSE_RELEASES)',
  },
  root: {
    type: 'string',
    value: 'DIR',
    default: '/',
    description: 'act on DIR/opt/gatehouse (a scratch root for tests); systemctl still acts on this host',
  },
  'health-timeout': {
    type: 'string',
    value: 'SECONDS',
    default: '60',
    description: 'how long the new release has to answer /health/ready before the previous one is put back',
  },
  'no-backup': { type: 'boolean', description: 'skip the backup taken into <data dir>/backups/ before migrating' },
  ...CONNECTION_OPTIONS,
} as const satisfies OptionSpecs;

export const UPGRADE_OPTIONS = {
  channel: {
    type: 'string',
    value: 'CHANNEL',
    // src/operations/release-source.ts CHANNELS; written out so that `--help` imports no operations module.
    choices: ['stable', 'rc'],
    required: true,
    description: 'the release channel to move to and follow from now on',
  },
  ...UPDATE_OPTIONS,
} as const satisfies OptionSpecs;

export const EXPORT_OPTIONS = {
  output: {
    type: 'string',
    short: 'o',
    value: 'FILE',
    description: 'write the document to FILE (default: stdout)',
  },
  ...CONNECTION_OPTIONS,
} as const satisfies OptionSpecs;

export const IMPORT_OPTIONS = {
  'dry-run': { type: 'boolean', description: 'say what would be created, change nothing' },
  json: JSON_OPTION,
  ...CONNECTION_OPTIONS,
} as const satisfies OptionSpecs;
