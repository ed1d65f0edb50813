// A multi-worker node's supervisor lives as long as the node, and everything it ever loaded stays resident: the
// command line, the configuration and its checks, the port check, the database preparation's client. So once `serve`
// has read and checked the configuration and the database is prepared (in a short-lived process, src/
// prepare-in-child.ts), it hands over: the process replaces its own image (execve: the same pid, so systemd's main
// process, a shell's job and signals sent to it stay the same) with Node started afresh on the very same command
// line, told by SUPERVISOR_ENV what the checks decided. That image loads only the supervisor (src/supervisor-main.ts)
// and forks the workers, which run the same command line as before (docs/decisions.md, "A supervisor that loads
// almost nothing").
import { runsFromReleaseExecutable } from './bundled-files.ts';
import type { SupervisorSettings } from './supervisor.ts';

export const SUPERVISOR_ENV = 'GATEHOUSE_SUPERVISOR';

/** What the handed-over supervisor is told, as JSON in SUPERVISOR_ENV. */
export interface Handover {
  settings: SupervisorSettings;
  /** The database the workers use (DATABASE_URL), as prepared. */
  databaseUrl: string;
  /** The start notes (src/cli/start-notes.ts): the issuer, and every line after the first three. */
  issuer: string;
  notes: string[];
}

/** process.execve is Node 23.11's; Node 24 has it on Linux, and the handover is skipped where it is missing. */
export const canHandOver = (): boolean => typeof process.execve === 'function';

/** Replaces this process with the handed-over supervisor; returns only if execve failed (it throws). */
export function handOver(handover: Handover): never {
  // The release executable applies its own V8 options and has no script: its argv[1] repeats argv[0]. A checkout's
  // launcher runs `node <options> src/gatehouse.mjs <arguments>`.
  const args = runsFromReleaseExecutable()
    ? [process.argv0, ...process.argv.slice(2)]
    : [process.argv0, ...process.execArgv, ...process.argv.slice(1)];
  process.execve?.(process.execPath, args, { ...process.env, [SUPERVISOR_ENV]: JSON.stringify(handover) });
  throw new Error('process.execve is not available');
}

/** In the new image: what the handover said, taken out of the environment so that the workers never see it. */
export function takeHandover(): Handover | null {
  const raw = process.env[SUPERVISOR_ENV];
  delete process.env[SUPERVISOR_ENV];
  return raw ? (JSON.parse(raw) as Handover) : null;
}
