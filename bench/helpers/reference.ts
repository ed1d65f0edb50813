// The raw references (RS256 signing, argon2id verification), measured in a process of their own that does nothing
// else: see reference-process.ts. One process per scenario, asked for one measurement per round.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ReferenceRequest } from './reference-process.ts';

const ENTRY = fileURLToPath(new URL('./reference-process.ts', import.meta.url));

export interface ReferenceProcess {
  measure(request: ReferenceRequest): Promise<number>;
  /** The rate, and the reference process's CPU (all threads) per operation. */
  measureWithCpu(request: ReferenceRequest): Promise<{ perSecond: number; cpuMicrosPerOperation: number }>;
  stop(): Promise<void>;
}

export async function startReferenceProcess(): Promise<ReferenceProcess> {
  const child = fork(ENTRY, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`reference process exited with ${code}`)));
  });
  const measureWithCpu = (request: ReferenceRequest) =>
    new Promise<{ perSecond: number; cpuMicrosPerOperation: number }>((resolve, reject) => {
      child.once('message', (reply: { perSecond?: number; cpuMicrosPerOperation?: number; error?: string }) =>
        reply.error === undefined
          ? resolve({
              perSecond: reply.perSecond as number,
              cpuMicrosPerOperation: reply.cpuMicrosPerOperation as number,
            })
          : reject(new Error(reply.error)),
      );
      child.send(request);
    });
  return {
    measureWithCpu,
    async measure(request) {
      return (await measureWithCpu(request)).perSecond;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
