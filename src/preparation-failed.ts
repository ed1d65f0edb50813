// Apart from src/prepare-in-child.ts, so that the CLI's failure reporting (src/cli/program.ts) names it without
// loading the preparation into every command.

/**
 * The short-lived process that prepared a multi-worker node's database (src/prepare-in-child.ts) failed. It ran the
 * same command and printed its own reason on stderr, the very line the supervisor printed when it prepared the
 * database itself: the supervisor adds nothing and exits with the child's status.
 */
export class PreparationFailed extends Error {
  readonly exitCode: number;
  constructor(code: number | null, signal: string | null) {
    super(`the database preparation exited with ${signal ?? code}; its reason is above`);
    this.name = 'PreparationFailed';
    this.exitCode = code !== null && code > 0 ? code : 1;
  }
}
