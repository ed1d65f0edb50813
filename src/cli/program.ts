// The `gatehouse` command line: commander builds parsing, `--help`, `--version` and the usage errors from the
// declarations in commands.ts; a command's module is imported only when that command runs.
import { styleText } from 'node:util';
import { Command as Commander, CommanderError, Option } from 'commander';
import { PreparationFailed } from '../preparation-failed.ts';
import { VERSION } from '../version.ts';
import type { CommandSpec, OptionSpec } from './args.ts';
import { commands } from './commands.ts';
import { describeFailure, EXIT_USAGE } from './failures.ts';

/** What running one command line ended with. */
interface Outcome {
  code: number;
  /** Set by parseCommandLine: the parsed input is handed here and no command runs. */
  capture?: (input: { values: Record<string, unknown>; positionals: string[] }) => void;
}

function optionFor(name: string, spec: OptionSpec): Option {
  const value = spec.type === 'string' ? ` <${spec.value ?? 'VALUE'}>` : '';
  const option = new Option(`${spec.short ? `-${spec.short}, ` : ''}--${name}${value}`, spec.description);
  if (spec.choices) option.choices(spec.choices);
  if (spec.default !== undefined) option.default(spec.default);
  if (spec.required) option.makeOptionMandatory();
  if (spec.multiple) option.argParser((item: string, previous: string[] | undefined) => [...(previous ?? []), item]);
  return option;
}

/** An option's parsed value under its declared name. commander turns `--no-x` into x=false, default true. */
function optionValue(parsed: Record<string, unknown>, name: string, spec: OptionSpec): unknown {
  const value = parsed[optionFor(name, spec).attributeName()];
  if (name.startsWith('no-')) return value === false ? true : undefined;
  return value;
}

/** The usage error lines: commander's message without its "error: " and the command it concerns. */
function errorOutput(path: string) {
  return {
    writeOut: (text: string) => process.stdout.write(text),
    writeErr: (text: string) => process.stderr.write(text),
    outputError: (text: string, write: (text: string) => void) =>
      write(`gatehouse${path ? ` ${path}` : ''}: ${text.replace(/^error: /, '')}`),
  };
}

// Titles bold, command and option names coloured; commander removes the styling when the stream is not a colour
// terminal or NO_COLOR / FORCE_COLOR=0 is set.
const HELP_STYLE = {
  styleTitle: (text: string) => styleText('bold', text, { validateStream: false }),
  styleCommandText: (text: string) => styleText('cyan', text, { validateStream: false }),
  styleSubcommandText: (text: string) => styleText('cyan', text, { validateStream: false }),
  styleOptionText: (text: string) => styleText('green', text, { validateStream: false }),
};

/** Reports a failure of a command's own work the way every command does: one line, or the stack for a bug. */
function reportFailure(top: string, error: unknown): number {
  // The preparation process already printed this command's failure, in these words (src/prepare-in-child.ts).
  if (error instanceof PreparationFailed) return error.exitCode;
  const failure = describeFailure(error);
  if (failure) {
    process.stderr.write(`gatehouse ${top}: ${failure.message}\n`);
    return failure.exitCode;
  }
  process.stderr.write(
    `gatehouse ${top}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
}

function addCommand(parent: Commander, spec: CommandSpec, path: string[], outcome: Outcome): void {
  const full = [...path, spec.name];
  const cmd = parent
    .command(spec.name)
    .summary(spec.summary)
    .description(spec.description ?? spec.summary);
  cmd.configureOutput(errorOutput(full.join(' ')));
  cmd.showHelpAfterError(
    `(\`gatehouse ${full.join(' ')} --help\` lists its ${spec.subcommands ? 'commands' : 'options'})`,
  );
  for (const argument of spec.arguments ?? []) cmd.argument(argument);
  const options = Object.entries(spec.options ?? {});
  for (const [name, option] of options) cmd.addOption(optionFor(name, option));
  if (spec.examples) cmd.addHelpText('after', `\nExamples:\n${spec.examples.map((e) => `  ${e}`).join('\n')}`);
  for (const sub of spec.subcommands ?? []) addCommand(cmd, sub, full, outcome);
  const load = spec.load;
  if (!load) return;
  cmd.action(async (...args: unknown[]) => {
    const self = args.at(-1) as Commander;
    const parsed = self.opts();
    const values = Object.fromEntries(
      options
        .map(([name, option]) => [name, optionValue(parsed, name, option)])
        .filter(([, value]) => value !== undefined),
    );
    if (outcome.capture) return outcome.capture({ values, positionals: self.args });
    try {
      const handler = await load();
      outcome.code = (await handler({ values, positionals: self.args } as never)) ?? 0;
    } catch (error) {
      outcome.code = reportFailure(full[0] ?? spec.name, error);
    }
  });
}

export function buildProgram(outcome: Outcome): Commander {
  const program = new Commander('gatehouse')
    .usage('<command> [options]')
    .description('Gatehouse: a self-hosted OAuth 2.0 / OpenID Connect identity provider.')
    .version(VERSION, '-V, --version', 'print the version and exit')
    .helpOption('-h, --help', 'show help')
    .helpCommand('help [command]', 'show help for a command')
    .exitOverride()
    .configureHelp(HELP_STYLE)
    .configureOutput(errorOutput(''))
    .showHelpAfterError(true)
    .addHelpText(
      'after',
      '\nEvery command takes --help. Exit status: 0 done, 1 failed check, 64 bad usage, 69 something needed is unavailable, 78 configuration.',
    );
  for (const spec of commands) addCommand(program, spec, [], outcome);
  return program;
}

/**
 * What the command line `args` parses to, without running it: for tests that call a command's function with the
 * values the real parser produces. A usage error throws.
 */
export async function parseCommandLine(
  args: string[],
): Promise<{ values: Record<string, unknown>; positionals: string[] }> {
  let input: { values: Record<string, unknown>; positionals: string[] } | undefined;
  const program = buildProgram({ code: 0, capture: (parsed) => (input = parsed) });
  program.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  await program.parseAsync(args, { from: 'user' });
  if (!input) throw new Error(`${args.join(' ')} runs no command`);
  return input;
}

/** Parses `args` (without node and the script) and runs the command; resolves to the exit status. */
export async function runProgram(args: string[]): Promise<number> {
  const outcome: Outcome = { code: 0 };
  const program = buildProgram(outcome);
  if (args.length === 0) {
    program.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(args, { from: 'user' });
    return outcome.code;
  } catch (error) {
    if (!(error instanceof CommanderError)) return reportFailure(args[0] ?? '', error);
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    // Help shown because a group was run without its subcommand, or any parse error: bad usage.
    return error.exitCode === 0 ? 0 : EXIT_USAGE;
  }
}
