// How a supervisor's cluster.fork re-runs this command: the database preparation (src/prepare-in-child.ts) and the
// workers (src/supervisor.ts) both go through it.
import cluster from 'node:cluster';
import { runsFromReleaseExecutable } from './bundled-files.ts';

/**
 * node:cluster forks `process.execPath` with `execArgv`, a script (`process.argv[1]`) and the arguments after it. The
 * release executable has no script: argv[1] repeats the name it was started by (perhaps through a symlink or PATH),
 * so the child is given the executable's resolved path instead, which its entry (packaging/build/sea-entry.ts)
 * recognises and drops. execArgv holds the V8 options of the executable's SEA configuration, which the child applies
 * by itself: passed on, they would arrive as the command name.
 */
export function forkThisCommand(): void {
  if (runsFromReleaseExecutable()) cluster.setupPrimary({ exec: process.execPath, execArgv: [] });
}
