// The raw references (RS256 signing, argon2id verification), measured in a process of their own that does nothing
// else: see reference-process.ts. One process per scenario, asked for one measurement per round.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ReferenceRequest } from './reference-process.ts';

const ENTRY = fileURLToPath(new URL('./reference-process.ts', import.meta.url));

export interface ReferenceProcess {
  measure(request: ReferenceRequest): Promise<number>;
  stop(): Promise<void>;
}

export async function startReferenceProcess(): Promise<ReferenceProcess> {
  const child = fork(ENTRY, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`reference process exited with ${code}`)));
  });
  return {
    measure(request) {
      return new Promise((resolve, reject) => {
        child.once('message', (reply: { perSecond?: number; error?: string }) =>
          reply.error === undefined ? resolve(reply.perSecond as number) : reject(new Error(reply.error)),
        );
        child.send(request);
      });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
