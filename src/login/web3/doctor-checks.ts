// What `gatehouse doctor` says about Sign-In with Ethereum's JSON-RPC nodes: each configured one must answer
// eth_chainId with the chain it is configured for, or smart-contract wallets on that chain cannot sign in (a node of
// another chain would answer isValidSignature about a different contract, so a mismatch is a failure, not advice).
import { createPublicClient, http } from 'viem';
import { ethereumRpcUrls, providerState } from '../../config/provider-state.ts';
import type { Config } from '../../config/schema.ts';
import { type Check, check } from '../../delivery/check.ts';

export async function ethereumRpcChecks(config: Config, timeoutMs: number): Promise<Check[]> {
  if (providerState(config, 'ethereum').state !== 'enabled') return [];
  const nodes = [...ethereumRpcUrls(config)];
  if (nodes.length === 0)
    return [check('info', 'ethereum', 'no rpc_urls: plain accounts only; smart-contract wallets are refused')];
  return Promise.all(
    nodes.map(async ([chainId, url]) => {
      const client = createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) });
      const name = `ethereum chain ${chainId}`;
      try {
        const answered = await client.getChainId();
        return answered === chainId
          ? check('ok', name, `${url} answers eth_chainId ${answered}`)
          : check('fail', name, `${url} answers eth_chainId ${answered}, not ${chainId}: a node of another chain`);
      } catch (error) {
        return check('fail', name, `${url} did not answer eth_chainId: ${(error as Error).message.split('\n')[0]}`);
      }
    }),
  );
}
