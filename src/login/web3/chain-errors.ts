// Telling "the chain did not answer" from "the chain answered no": a JSON-RPC node that cannot be reached (refused,
// timed out, answering with an HTTP error) proves nothing about a signature, so the person is told the chain is
// unavailable (503 chain_unavailable, retry later) instead of being told their signature is wrong.
import { HttpRequestError, type PublicClient, TimeoutError } from 'viem';
import { GatehouseError } from '../../http/errors.ts';

/** Whether this error, or any error it wraps (viem and @farcaster/auth-client both chain `cause`), is a transport failure. */
export function isChainUnreachable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++)
    if (e instanceof HttpRequestError || e instanceof TimeoutError) return true;
  return false;
}

/**
 * Called when a signature did not verify through the node: viem's verifyMessage answers false both for a wallet that
 * said no and for a call that never reached the node (it folds the transport error into "not verified"), so one
 * cheap eth_chainId tells them apart. Throws chain_unavailable when the node cannot be reached.
 */
export async function assertChainReachable(client: Pick<PublicClient, 'getChainId'>): Promise<void> {
  try {
    await client.getChainId();
  } catch (error) {
    if (isChainUnreachable(error)) throw new GatehouseError('chain_unavailable', undefined, { cause: error });
  }
}
