// /metrics reports the node, not the worker that happened to take the scrape. With server.workers > 1 the primary
// hands each connection to a worker in turn, so per-worker counters would alternate between the workers' values
// and Prometheus would read nearly every scrape as a counter reset. The worker that takes the scrape asks the
// supervisor (node:cluster primary, node-totals-serve.ts), which collects every worker's registry with prom-client's
// AggregatorRegistry and answers with the node's totals: counters and histograms summed, gauges per their `aggregator`.
import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { ANSWER, type Answer, ASK, isMessage } from './node-totals-serve.ts';
import { AggregatorRegistry, type Registry } from './prom-client.ts';

/** Longer than AggregatorRegistry's own 5 s wait for the workers, so its error arrives first. */
const ANSWER_TIMEOUT_MS = 7000;

const pending = new Map<string, (answer: Answer) => void>();
let listening = false;

/**
 * In a worker: offers `registry` to the supervisor's aggregation (prom-client answers its requests), and returns
 * how a scrape reads the node's metrics. Outside a cluster it is the registry's own text.
 */
export function nodeMetricsReader(registry: Registry): () => Promise<string> {
  if (!cluster.isWorker) return () => registry.metrics();
  // The constructor makes prom-client answer the supervisor's requests in this process, from `registry`.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  if (!listening) {
    listening = true;
    process.on('message', (message: unknown) => {
      if (isMessage<Answer>(message, ANSWER)) pending.get(message.id)?.(message);
    });
  }
  return () =>
    new Promise((resolve, reject) => {
      const id = randomUUID();
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('the supervisor did not answer with the node metrics'));
      }, ANSWER_TIMEOUT_MS);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        pending.delete(id);
        if (answer.text !== undefined) resolve(answer.text);
        else reject(new Error(`node metrics: ${answer.error ?? 'no answer'}`));
      });
      process.send?.({ type: ASK, id });
    });
}
