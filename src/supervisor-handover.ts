// A multi-worker node's supervisor lives as long as the node, and everything it ever loaded stays resident: the
// command line, the configuration and its checks, the port check, the database preparation's client. So once `serve`
// has read and checked the configuration and the database is prepared (in a short-lived process, src/
// prepare-in-child.ts), it hands over: the process replaces its own image (execve: the same pid, so systemd's main
// process, a shell's job and signals sent to it stay the same) with Node started afresh on the very same command
// line, told by SUPERVISOR_ENV what the checks decided. That image loads only the supervisor (src/supervisor-main.ts)
// and forks the workers, which run the same command line as before (docs/decisions.md, "A supervisor that loads
// almost nothing").
import { accessSync, constants } from 'node:fs';
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

/**
 * Whether the handover can be made: process.execve is Node 23.11's (Node 24 has it on Linux). A failed execve does
 * not throw in Node 24: it prints the error and aborts the process, so what can be checked beforehand is: the
 * executable must still be there (an update may have removed it). Where either is missing, the node keeps the
 * supervisor in this process (src/supervisor-start.ts), whose workers need the same executable.
 */
export function canHandOver(): boolean {
  if (typeof process.execve !== 'function') return false;
  try {
    accessSync(process.execPath, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Replaces this process with the handed-over supervisor (see canHandOver: it does not return). */
export function handOver(handover: Handover): never {
  // The release executable applies its own V8 options and has no script: its argv[1] repeats argv[0]. A checkout's
  // launcher runs `node <options> src/gatehouse.mjs <arguments>`.
  const args = runsFromReleaseExecutable()
    ? [process.argv0, ...process.argv.slice(2)]
    : [process.argv0, ...process.execArgv, ...process.argv.slice(1)];
  process.execve?.(process.execPath, args, { ...process.env, [SUPERVISOR_ENV]: JSON.stringify(handover) });
  throw new Error('process.execve is not available: canHandOver() must be asked first');
}

/**
 * In the new image: what the handover said, taken out of the environment so that the workers never see it; null when
 * the variable holds no handover (set by hand).
 */
export function takeHandover(): Handover | null {
  const raw = process.env[SUPERVISOR_ENV];
  delete process.env[SUPERVISOR_ENV];
  try {
    const handover = JSON.parse(raw ?? '') as Partial<Handover> | null;
    return handover?.settings && typeof handover.databaseUrl === 'string' ? (handover as Handover) : null;
  } catch {
    return null;
  }
}
