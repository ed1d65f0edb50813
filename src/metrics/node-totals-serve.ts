// The supervisor's side of the node's /metrics totals (node-totals.ts has the worker's). The supervisor imports
// prom-client's aggregation (prom-client.ts) at the first scrape, not at start, so a node that is never scraped keeps
// it out of its smallest process.
import cluster from 'node:cluster';
import type { AggregatorRegistry } from './prom-client.ts';

export const ASK = 'gatehouse:node-metrics';
export const ANSWER = 'gatehouse:node-metrics-answer';

export interface Answer {
  type: typeof ANSWER;
  id: string;
  text?: string;
  error?: string;
}

export const isMessage = <T extends { type: string }>(value: unknown, type: T['type']): value is T =>
  typeof value === 'object' && value !== null && (value as { type?: unknown }).type === type;

/** In the supervisor: answers each worker's request with the text exposition of every worker's metrics. */
export function serveNodeMetrics(): void {
  let aggregator: Promise<AggregatorRegistry> | null = null;
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage<{ type: typeof ASK; id: string }>(message, ASK)) return;
    aggregator ??= import('./prom-client.ts').then(({ AggregatorRegistry }) => new AggregatorRegistry());
    aggregator
      .then((registry) => registry.clusterMetrics())
      .then(
        (text) => worker.send({ type: ANSWER, id: message.id, text } satisfies Answer),
        (error: Error) => worker.send({ type: ANSWER, id: message.id, error: error.message } satisfies Answer),
      );
  });
}
