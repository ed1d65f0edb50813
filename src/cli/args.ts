// How a command is declared. src/cli/commands.ts lists every command as data (name, summary, arguments, options,
// subcommands) and a `load` that imports the module doing the work only when that command runs; src/cli/program.ts
// turns the list into a commander program, so `--help` of every command and subcommand is built from the same
// declaration that parses its flags, and `gatehouse --help` loads no command module.

/** Bad command-line use; main prints the message and exits 64 (EX_USAGE). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** One option, written like a node:util parseArgs option plus the text `--help` shows. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  description: string;
  /** The placeholder `--help` shows for a string option's value, e.g. FILE (default VALUE). */
  value?: string;
  /** A string option given several times collects every value. */
  multiple?: boolean;
  /** One letter, e.g. `n` for `-n`. */
  short?: string;
  /** Value when the option is absent (string options only). */
  default?: string;
  /** The values a string option accepts; anything else is refused before the command runs. */
  choices?: readonly string[];
  /** The command refuses to run without it (commander's "required option ... not specified"). */
  required?: boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;

/** The parsed options, keyed by the option's name as declared (`database-url`, not `databaseUrl`). */
export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : O[K]['multiple'] extends true ? string[] : string;
};

/** What a command's handler gets: parseArgs' shape, so a parseArgs-based command converts by moving its flags. */
export interface CommandInput<V> {
  values: V;
  /** The operands, in order, as the declared arguments name them. */
  positionals: string[];
}

/** Exit status; undefined means 0. */
export type Handler<V> = (input: CommandInput<V>) => Promise<number | undefined>;

export interface CommandSpec {
  name: string;
  /** One line, shown in the parent's command list. */
  summary: string;
  /** More text for this command's own `--help`, after the summary. */
  description?: string;
  /** Operands in commander's syntax: `<path>` required, `[section]` optional, `<files...>` several. */
  arguments?: string[];
  options?: OptionSpecs;
  /** Imports the module doing the work; absent for a command that only groups subcommands. */
  load?: () => Promise<Handler<never>>;
  subcommands?: CommandSpec[];
  /** Examples shown at the end of `--help`. */
  examples?: string[];
}

/**
 * Declares a command whose handler's option types follow from `options`: a handler expecting an option as a string
 * where it is declared boolean (or the reverse) is a type error.
 */
export function command<O extends OptionSpecs>(
  spec: Omit<CommandSpec, 'options' | 'load'> & { options?: O; load?: () => Promise<Handler<OptionValues<O>>> },
): CommandSpec {
  return spec as CommandSpec;
}

/** Options most commands share. */
export const CONFIG_OPTION = {
  type: 'string',
  value: 'FILE',
  description:
    'configuration file (default: $GATEHOUSE_CONFIG, else /etc/gatehouse/gatehouse.toml; with neither, the development instance under ./.gatehouse)',
} as const satisfies OptionSpec;

export const DATABASE_URL_OPTION = {
  type: 'string',
  value: 'URL',
  description: 'postgres:// URL to use instead of database.url',
} as const satisfies OptionSpec;

export const JSON_OPTION = {
  type: 'boolean',
  description: 'print the result as one JSON document on stdout',
} as const satisfies OptionSpec;
