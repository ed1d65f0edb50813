import { type ParseArgsConfig, parseArgs } from 'node:util';

/** Bad command-line use; main prints the message and exits 64 (EX_USAGE). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export interface Command {
  summary: string;
  run(args: string[]): Promise<number | undefined>;
}
