// Apart from src/supervisor.ts, so that the CLI's failure table (src/cli/failures.ts) names it without loading the
// supervisor into every command.

/**
 * A worker exited before it listened. Its own message (a configuration refusal, an unreachable database) is on
 * stderr above; the node exits with the worker's status, so a configuration refusal is 78 with several workers as
 * with one, and systemd's RestartPreventExitStatus applies.
 */
export class WorkerStartFailed extends Error {
  readonly exitCode: number;
  constructor(slot: number, code: number | null, signal: string | null) {
    super(`worker ${slot} exited with ${signal ?? code} before it listened; its reason is above`);
    this.name = 'WorkerStartFailed';
    this.exitCode = code !== null && code > 0 ? code : 1;
  }
}
