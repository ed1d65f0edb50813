import type { Command } from './args.ts';

// Each command's module is loaded only when that command runs: `serve` then never loads setup, doctor, audit
// verification and the rest, which keeps the long-running process smaller.
export const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.ts')).serveCommand,
  setup: async () => (await import('./setup.ts')).setupCommand,
  migrate: async () => (await import('./migrate.ts')).migrateCommand,
  info: async () => (await import('./info.ts')).infoCommand,
  audit: async () => (await import('./audit.ts')).auditCommand,
  doctor: async () => (await import('./doctor.ts')).doctorCommand,
  config: async () => (await import('./config.ts')).configCommand,
  owner: async () => (await import('./owner.ts')).ownerCommand,
  keys: async () => (await import('./keys.ts')).keysCommand,
  backup: async () => (await import('./backup.ts')).backupCommand,
  restore: async () => (await import('./restore.ts')).restoreCommand,
  users: async () => (await import('./users.ts')).usersCommand,
  update: async () => (await import('./update.ts')).updateCommand,
  upgrade: async () => (await import('./update.ts')).upgradeCommand,
  export: async () => (await import('./registry.ts')).exportCommand,
  import: async () => (await import('./registry.ts')).importCommand,
  help: async () => helpCommand,
};

/** The usage text: `gatehouse help` prints it, and an unknown command gets it on stderr. Loads every command. */
export async function usage(): Promise<string> {
  const lines: string[] = [];
  for (const [name, load] of Object.entries(commands)) lines.push(`  ${name.padEnd(10)} ${(await load()).summary}`);
  return `Usage: gatehouse <command> [--config FILE] [options]\n\nCommands:\n${lines.join('\n')}\n`;
}

const helpCommand: Command = {
  summary: 'List the commands.',
  async run() {
    process.stdout.write(await usage());
    return 0;
  },
};
