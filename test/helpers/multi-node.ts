// N Gatehouse nodes (separate processes, one shared secrets directory, one database) behind HAProxy, with
// server.trusted_proxy on: the deployment DESIGN.md "Stateless nodes" promises, for the multi-node and fault tests
// and for benchmarks. Every node is a real `gatehouse serve`; nothing is shared between them but PostgreSQL.
import path from 'node:path';
import { loadSecrets, type Secrets } from '../../src/crypto/secret-files.ts';
import { type GatehouseProcess, startGatehouse, writeNodeConfig } from './gatehouse-process.ts';
import { type LoadBalancer, startHaproxy } from './haproxy.ts';

export interface MultiNode {
  nodes: GatehouseProcess[];
  balancer: LoadBalancer;
  secrets: Secrets;
  secretsDir: string;
  configFiles: string[];
  /** Starts node `index` again (after it was stopped or killed) on a new port; the balancer is not updated. */
  restart(index: number): Promise<GatehouseProcess>;
  stop(): Promise<void>;
}

export interface MultiNodeOptions {
  dir: string;
  databaseUrl: string;
  count: number;
  workers?: number;
  /** TOML appended to every node's config (e.g. a [delivery] section). */
  extra?: string;
  poolMax?: number;
  connectTimeoutSeconds?: number;
}

export async function startMultiNode(options: MultiNodeOptions): Promise<MultiNode> {
  const secretsDir = path.join(options.dir, 'secrets');
  const configFiles = Array.from({ length: options.count }, (_, i) =>
    writeNodeConfig({
      dir: path.join(options.dir, `node${i + 1}`),
      secretsDir,
      workers: options.workers ?? 1,
      trustedProxy: true,
      ...(options.extra ? { extra: options.extra } : {}),
      ...(options.poolMax ? { poolMax: options.poolMax } : {}),
      ...(options.connectTimeoutSeconds ? { connectTimeoutSeconds: options.connectTimeoutSeconds } : {}),
    }),
  );
  const start = (file: string) => startGatehouse({ configFile: file, databaseUrl: options.databaseUrl });
  const nodes = await Promise.all(configFiles.map(start));
  let balancer: LoadBalancer;
  try {
    balancer = await startHaproxy(
      options.dir,
      nodes.map((node) => node.url),
    );
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw error;
  }
  return {
    nodes,
    balancer,
    secrets: loadSecrets(secretsDir),
    secretsDir,
    configFiles,
    async restart(index) {
      const node = await start(configFiles[index] as string);
      nodes[index] = node;
      return node;
    },
    async stop() {
      await balancer.stop();
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
}
