import type { Command } from './args.ts';
import { auditCommand } from './audit.ts';
import { configCommand } from './config.ts';
import { doctorCommand } from './doctor.ts';
import { infoCommand } from './info.ts';
import { keysCommand } from './keys.ts';
import { migrateCommand } from './migrate.ts';
import { ownerCommand } from './owner.ts';
import { serveCommand } from './serve.ts';
import { setupCommand } from './setup.ts';

/** The usage text: `gatehouse help` prints it, and an unknown command gets it on stderr. */
export function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `Usage: gatehouse <command> [--config FILE] [options]\n\nCommands:\n${lines.join('\n')}\n`;
}

const helpCommand: Command = {
  summary: 'List the commands.',
  async run() {
    process.stdout.write(usage());
    return 0;
  },
};

export const commands: Record<string, Command> = {
  serve: serveCommand,
  setup: setupCommand,
  migrate: migrateCommand,
  info: infoCommand,
  audit: auditCommand,
  doctor: doctorCommand,
  config: configCommand,
  owner: ownerCommand,
  keys: keysCommand,
  help: helpCommand,
};
