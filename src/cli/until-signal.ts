// How `serve` and the handed-over supervisor (src/supervisor-main.ts) end: on SIGTERM or SIGINT, gracefully.
import type { RunningServer } from '../server.ts';

/** Resolves once SIGTERM or SIGINT stopped the server gracefully; a second signal changes nothing. */
export function untilSignal(server: Pick<RunningServer, 'stop'>): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    const shutdown = () => {
      if (stopping) return;
      stopping = true;
      server.stop().then(resolve, resolve);
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
  });
}
