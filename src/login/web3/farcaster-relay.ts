// The two outside parties of Sign In With Farcaster, through @farcaster/auth-client (never hand-written):
// - the relay (AuthKit protocol): the service opens a channel for its own nonce, the Farcaster app signs in the
//   person's custody key and completes the channel, and the service reads the signed message back;
// - OP Mainnet, where the Farcaster ID registry maps each custody address to its fid. The library checks the
//   EIP-4361 signature (EIP-191, or EIP-1271 for a contract custody wallet) and asks the registry whether the signer
//   owns the fid the message names.
// The connector is ours rather than the library's viemConnector so the node URL is the configured one and a node
// that does not answer fails within RPC_TIMEOUT_MS, once, instead of retrying.
import { type AppClient, type CreateClientArgs, createAppClient } from '@farcaster/auth-client';
import { createPublicClient, http, parseAbi } from 'viem';
import { optimism } from 'viem/chains';
import { GatehouseError } from '../../http/errors.ts';

/** The ID registry on OP Mainnet (Farcaster's published deployment); the test chain puts its stand-in here too. */
export const ID_REGISTRY_ADDRESS = '0x00000000Fc6c5F01Fc30151999387Bb99A9f489b';
const idRegistryAbi = parseAbi(['function idOf(address owner) view returns (uint256)']);

/** Bounded so a slow node or relay cannot hold a sign-in open; no retries, the page simply polls again. */
const RPC_TIMEOUT_MS = 10_000;
const RELAY_TIMEOUT_MS = 10_000;

export function farcasterClient(relayUrl: string, rpcUrl: string): AppClient {
  const publicClient = createPublicClient({
    chain: optimism,
    transport: http(rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0 }),
  });
  const ethereum: CreateClientArgs['ethereum'] = {
    publicClient,
    getFid: (custody) =>
      publicClient.readContract({
        address: ID_REGISTRY_ADDRESS,
        abi: idRegistryAbi,
        functionName: 'idOf',
        args: [custody],
      }),
    // Only custody signatures are accepted (verifySignInMessage is called with acceptAuthAddress: false), so the key
    // registry's auth addresses are never asked about.
    isValidAuthAddress: async () => false,
  };
  // The relay URL is configured without the protocol version; the library appends it (/v1/channel...).
  return createAppClient({ relay: relayUrl.replace(/\/+$/, ''), ethereum });
}

/**
 * A relay call bounded in time; a relay that cannot be reached, times out or answers 5xx is unavailable (503). The
 * library resolves with isError for a network failure and hands back any HTTP answer as it came.
 */
export async function relayCall<T extends { isError: boolean; response?: Response }>(call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new GatehouseError('farcaster_relay_unavailable')), RELAY_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([call, timeout]);
    if (result.isError || (result.response?.status ?? 500) >= 500)
      throw new GatehouseError('farcaster_relay_unavailable', undefined, { cause: result });
    return result;
  } finally {
    clearTimeout(timer);
  }
}
