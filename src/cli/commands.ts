// Every `gatehouse` command, as data (src/cli/args.ts says how one is declared). A command's module is imported
// only when that command runs: `serve` then never loads setup, doctor, audit verification and the rest, which keeps
// the long-running process smaller, and `--help` loads none of them.
import { CONFIG_OPTION, type CommandSpec, command, DATABASE_URL_OPTION, JSON_OPTION } from './args.ts';
import {
  BACKUP_OPTIONS,
  DELIVERY_OPTIONS,
  EXPORT_OPTIONS,
  IMPORT_OPTIONS,
  PROVIDERS_OPTIONS,
  RESTORE_OPTIONS,
  SAML_REFRESH_OPTIONS,
  SAVE_OPTIONS,
  SETUP_OPTIONS,
  UPDATE_OPTIONS,
  UPGRADE_OPTIONS,
  USERS_INVITE_OPTIONS,
  USERS_LIST_OPTIONS,
  USERS_TARGET_OPTIONS,
} from './options.ts';

const CONFIG_ONLY = { config: CONFIG_OPTION } as const;
const WITH_DATABASE = { config: CONFIG_OPTION, 'database-url': DATABASE_URL_OPTION } as const;
const WAIT = {
  config: CONFIG_OPTION,
  timeout: {
    type: 'string',
    value: 'SECONDS',
    description: 'how long to wait for /health/ready (default 60)',
  },
} as const;

export const commands: CommandSpec[] = [
  command({
    name: 'serve',
    summary:
      'Run the service (no config file: a development instance under ./.gatehouse, its config in .gatehouse/gatehouse.toml, its JSON log in .gatehouse/log unless GATEHOUSE_LOG=stdout).',
    options: CONFIG_ONLY,
    load: async () => (await import('./serve.ts')).serve,
  }),
  command({
    name: 'setup',
    summary: 'Write the config, generate secret files, migrate, and create the organization and initial owner.',
    description:
      'Write the config, generate secret files, migrate, and create the organization and initial owner. Asks on a terminal for what the flags leave out; safe to run again (secrets are kept, the database is authoritative).',
    options: SETUP_OPTIONS,
    examples: [
      'gatehouse setup --domain id.example.com --org-name Acme --org-id acme --owner alice@example.com --database local',
    ],
    load: async () => (await import('./setup.ts')).setup,
  }),
  command({
    name: 'migrate',
    summary: 'Apply pending database migrations and exit (serve also does this before listening).',
    options: WITH_DATABASE,
    load: async () => (await import('./migrate.ts')).migrateDatabase,
  }),
  command({
    name: 'info',
    summary: 'Print the version and the effective configuration summary (no secrets).',
    options: { ...CONFIG_ONLY, json: JSON_OPTION },
    load: async () => (await import('./info.ts')).info,
  }),
  command({
    name: 'doctor',
    summary: 'Check the configuration, database, secrets, keys, TLS, providers and delivery; say what is still to do.',
    description:
      'Check the configuration, database, secrets, keys, TLS, providers and delivery; every problem comes with what to do. Exits 1 when something needed is broken.',
    options: { ...CONFIG_ONLY, json: JSON_OPTION },
    load: async () => (await import('./doctor.ts')).doctor,
  }),
  command({
    name: 'status',
    summary: 'Is the service running and ready: version, uptime, listener; --full adds database, TLS, keys and more.',
    description:
      'Is the service running and ready: version, uptime (from systemd, or the development instance), and whether the listener answers /health/ready. --full adds the database, migrations, delivery, providers, TLS certificate expiry and signing key ages. Exits 1 when the listener is not ready.',
    options: {
      ...CONFIG_ONLY,
      full: { type: 'boolean', description: 'add database, migrations, delivery, providers, TLS and keys' },
      json: JSON_OPTION,
    },
    load: async () => (await import('./status.ts')).status,
  }),
  command({
    name: 'logs',
    summary:
      "Show the service's log lines (the systemd journal, --file, or in a development instance's directory its .gatehouse/log).",
    options: {
      lines: { type: 'string', short: 'n', value: 'N', description: 'how many of the last lines (default 100)' },
      follow: { type: 'boolean', short: 'f', description: 'keep printing new lines until interrupted' },
      file: {
        type: 'string',
        value: 'FILE',
        description: 'read this file instead of the journal (where stdout is sent when not under systemd)',
      },
    },
    load: async () => (await import('./logs.ts')).logs,
  }),
  command({
    name: 'start',
    summary: 'Start gatehouse.service (systemd) and wait until it is ready.',
    options: WAIT,
    load: async () => (await import('./service-control.ts')).start,
  }),
  command({
    name: 'stop',
    summary: 'Stop gatehouse.service (systemd).',
    load: async () => (await import('./service-control.ts')).stop,
  }),
  command({
    name: 'restart',
    summary: 'Restart gatehouse.service (systemd) and wait until it is ready.',
    options: WAIT,
    load: async () => (await import('./service-control.ts')).restart,
  }),
  {
    name: 'audit',
    summary: 'Audit chain commands.',
    subcommands: [
      command({
        name: 'verify',
        summary: 'Check every audit chain and name the first broken record.',
        options: { ...WITH_DATABASE, json: JSON_OPTION },
        load: async () => (await import('./audit.ts')).verifyAudit,
      }),
    ],
  },
  {
    name: 'keys',
    summary: 'OIDC signing keys: rotate, list.',
    subcommands: [
      command({
        name: 'rotate',
        summary: 'Add a new signing key; the current one is retired and stays published until its tokens expire.',
        options: WITH_DATABASE,
        load: async () => (await import('./keys.ts')).rotateKeys,
      }),
      command({
        name: 'list',
        summary: 'List the published signing keys.',
        options: { ...WITH_DATABASE, json: JSON_OPTION },
        load: async () => (await import('./keys.ts')).listKeys,
      }),
    ],
  },
  {
    name: 'owner',
    summary: 'Initial owner commands.',
    subcommands: [
      command({
        name: 'enroll-link',
        summary:
          'Print a fresh one-time enrollment link for the initial owner; refused once the owner enrolled, unless --reset (using it resets their password and TOTP).',
        options: {
          ...WITH_DATABASE,
          reset: {
            type: 'boolean',
            description: 'issue it although the owner already enrolled: its use replaces their password and TOTP',
          },
        },
        load: async () => (await import('./owner.ts')).enrollLink,
      }),
    ],
  },
  {
    name: 'config',
    summary: 'Change a configuration section with a backup, a check and a restart.',
    description:
      'Change a configuration section: the new file is validated before it is saved, the previous one kept in config-backups/ beside it (the last 5 of each file), and the service restarted; when it does not come back ready the previous file is put back and the service restarted again.',
    subcommands: [
      command({
        name: 'main',
        summary: 'Every section but delivery and providers: --set section.key=value, or --edit in $EDITOR.',
        options: {
          ...CONFIG_ONLY,
          set: {
            type: 'string',
            value: 'KEY=VALUE',
            multiple: true,
            description: 'set one key, e.g. server.listen=127.0.0.1:8080 (repeatable; TOML values: 5, true, "text")',
          },
          ...SAVE_OPTIONS,
        },
        examples: [
          'gatehouse config main --set tokens.access_token_ttl_seconds=600',
          'EDITOR=nano gatehouse config main --edit',
        ],
        load: async () => (await import('./config-main.ts')).configMain,
      }),
      command({
        name: 'self-service',
        summary: 'Turn account self-service on or off.',
        arguments: ['<state>'],
        options: { ...CONFIG_ONLY, 'no-restart': SAVE_OPTIONS['no-restart'], timeout: SAVE_OPTIONS.timeout },
        load: async () => (await import('./config-main.ts')).configSelfService,
      }),
      command({
        name: 'delivery',
        summary: 'How verification messages leave: smtp, direct_mx, webhook.',
        options: DELIVERY_OPTIONS,
        examples: ['gatehouse config delivery --kind smtp --smtp-host mail.example.com --smtp-password-stdin'],
        load: async () => (await import('./config.ts')).configDelivery,
      }),
      command({
        name: 'providers',
        summary: 'Add or change a redirect sign-in provider.',
        options: PROVIDERS_OPTIONS,
        examples: [
          'gatehouse config providers --provider google --client-id ID --client-secret-file secret.txt --enable',
        ],
        load: async () => (await import('./config-providers.ts')).configProviders,
      }),
    ],
  },
  command({
    name: 'backup',
    summary: 'Database snapshot, configuration and secrets in one archive (0600) with a checksum.',
    description:
      'Write one gzipped tar archive (mode 0600, never over an existing file) holding every table from one consistent snapshot, the migration files, the configuration file and every secret file; its SHA-256 is printed and written to <path>.sha256. The archive holds every secret: keep it like the host.',
    arguments: ['<path>'],
    options: BACKUP_OPTIONS,
    examples: ['gatehouse backup /var/backups/gatehouse-nightly.tar.gz'],
    load: async () => (await import('./backup.ts')).backup,
  }),
  command({
    name: 'restore',
    summary: 'Put a backup back (service stopped; --force for another schema).',
    description:
      "Verify the archive's checksum and put the database, secret files and configuration back (the replaced files are kept as *.before-restore-<time>). Refused while the service answers on its listener, and for a backup whose schema is not this release's unless --force.",
    arguments: ['<path>'],
    options: RESTORE_OPTIONS,
    examples: ['systemctl stop gatehouse && gatehouse restore /var/backups/gatehouse-nightly.tar.gz'],
    load: async () => (await import('./restore.ts')).restore,
  }),
  {
    name: 'saml',
    summary: "SAML connections from the shell: fetch a connection's identity provider metadata now (audited).",
    description:
      "SAML connections from the shell. Every change is audited like the admin API's, with actor operator:<login name>.",
    subcommands: [
      command({
        name: 'refresh-metadata',
        summary:
          'Fetch the metadata URL of a connection made through the admin API now; every running node picks the copy up.',
        arguments: ['<id>'],
        options: SAML_REFRESH_OPTIONS,
        examples: ['gatehouse saml refresh-metadata partner'],
        load: async () => (await import('./saml.ts')).samlRefreshMetadata,
      }),
    ],
  },
  {
    name: 'users',
    summary: "The admin API's people operations from the shell: list, invite, suspend, sign-out (audited).",
    description:
      "The admin API's people operations from the shell. Every change is audited like the API's, with actor operator:<login name>.",
    subcommands: [
      command({
        name: 'list',
        summary: 'Identities, newest first: sub, state, assurance, email, name.',
        options: USERS_LIST_OPTIONS,
        examples: ['gatehouse users list --search alice@ --limit 10'],
        load: async () => (await import('./users.ts')).usersList,
      }),
      command({
        name: 'invite',
        summary:
          'Invite someone into the organization; the enrollment link is emailed, kept in the development mailbox, or printed once.',
        arguments: ['<email>'],
        options: USERS_INVITE_OPTIONS,
        examples: ['gatehouse users invite bob@example.com --name "Bob Example" --role member --role billing'],
        load: async () => (await import('./users.ts')).usersInvite,
      }),
      command({
        name: 'suspend',
        summary: 'Suspend an identity (by sub or email): its sessions and OAuth grants end.',
        arguments: ['<user>'],
        options: USERS_TARGET_OPTIONS,
        load: async () => (await import('./users.ts')).usersSuspend,
      }),
      command({
        name: 'sign-out',
        summary: 'Sign an identity (by sub or email) out everywhere: its sessions and OAuth grants end.',
        arguments: ['<user>'],
        options: USERS_TARGET_OPTIONS,
        load: async () => (await import('./users.ts')).usersSignOut,
      }),
    ],
  },
  command({
    name: 'update',
    summary: 'Install the newest release of the followed channel (verify, migrate, switch, roll back on failure).',
    description:
      'Install the newest release of the channel the installation follows: verified against SHA256SUMS, unpacked beside the installed ones, migrated after a backup, switched to and restarted; when it does not come back healthy the previous release is put back and restarted. A release whose schema is older than the database is refused.',
    options: UPDATE_OPTIONS,
    examples: ['gatehouse update --from https://releases.example.com/gatehouse'],
    load: async () => (await import('./update.ts')).update,
  }),
  command({
    name: 'upgrade',
    summary: 'Move to the newest release of a channel (stable or rc) and follow it from now on.',
    description:
      'Move to the newest release of --channel and follow that channel from now on; otherwise as update does.',
    options: UPGRADE_OPTIONS,
    examples: ['gatehouse upgrade --channel rc'],
    load: async () => (await import('./update.ts')).upgradeChannel,
  }),
  command({
    name: 'export',
    summary: 'Applications, resources and clients as JSON (never a secret).',
    options: EXPORT_OPTIONS,
    examples: ['gatehouse export --output registry.json'],
    load: async () => (await import('./registry.ts')).exportCommand,
  }),
  command({
    name: 'import',
    summary: 'Create what an export lists; re-runnable; conflicts refuse it all; new secrets shown once.',
    description:
      'Create the applications, resources and clients an export document (FILE, or - for stdin) lists that this installation lacks; entries already here unchanged are left alone, and any conflicting entry refuses the whole import. New client secrets are printed once.',
    arguments: ['<file>'],
    options: IMPORT_OPTIONS,
    examples: ['gatehouse import registry.json --dry-run', 'ssh old-host gatehouse export | gatehouse import -'],
    load: async () => (await import('./registry.ts')).importCommand,
  }),
];
