// What `gatehouse doctor` says about the web3 providers' JSON-RPC nodes. Sign-In with Ethereum: each configured one must answer
// eth_chainId with the chain it is configured for, or smart-contract wallets on that chain cannot sign in (a node of
// another chain would answer isValidSignature about a different contract, so a mismatch is a failure, not advice).
import { createPublicClient, http } from 'viem';
import { ethereumRpcUrls, providerState } from '../../config/provider-state.ts';
import type { Config } from '../../config/schema.ts';
import { type Check, check } from '../../delivery/check.ts';
import { ID_REGISTRY_ADDRESS } from './farcaster-relay.ts';

const OP_MAINNET = 10;

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

/**
 * The OP Mainnet node Sign In With Farcaster reads fids' custody addresses from: it must answer eth_chainId 10 and
 * hold the ID registry's code at its address, or every Farcaster sign-in answers chain_unavailable.
 */
export async function farcasterRpcChecks(config: Config, timeoutMs: number): Promise<Check[]> {
  if (providerState(config, 'farcaster').state !== 'enabled') return [];
  const url = config.providers.farcaster.rpc_url;
  const client = createPublicClient({ transport: http(url, { timeout: timeoutMs, retryCount: 0 }) });
  const name = 'farcaster id registry';
  try {
    const chainId = await client.getChainId();
    if (chainId !== OP_MAINNET)
      return [check('fail', name, `${url} answers eth_chainId ${chainId}, not ${OP_MAINNET} (OP Mainnet)`)];
    const code = await client.getCode({ address: ID_REGISTRY_ADDRESS });
    return code && code !== '0x'
      ? [check('ok', name, `${url} answers eth_chainId ${OP_MAINNET} and holds the ID registry`)]
      : [check('fail', name, `${url} has no contract at the ID registry's address ${ID_REGISTRY_ADDRESS}`)];
  } catch (error) {
    return [check('fail', name, `${url} did not answer: ${(error as Error).message.split('\n')[0]}`)];
  }
}
