// Whether a wallet signed an EIP-4361 message, by viem (never hand-written hashing or ABI calls):
// - with a JSON-RPC URL for the chain, the public client's verifyMessage covers all three kinds of wallet: EIP-191
//   recovery for a plain account, EIP-1271 isValidSignature for a deployed contract wallet, and EIP-6492 (the
//   wallet's factory call wrapped around the signature) for one not yet deployed, checked by a deployless eth_call;
// - without one, only EIP-191 can be checked, and a signature that cannot be a plain account's (not 65 bytes, or
//   EIP-6492-wrapped) is refused as unverifiable here rather than as wrong.
import { createPublicClient, type Hex, http, isErc6492Signature, size, verifyMessage } from 'viem';
import { GatehouseError } from '../../http/errors.ts';
import { assertChainReachable, isChainUnreachable } from './chain-errors.ts';

export interface SignatureCheck {
  chainId: number;
  address: Hex;
  message: string;
  signature: Hex;
}

/** Bounded so a slow node cannot hold a sign-in open; no retries, the person can simply try again. */
const RPC_TIMEOUT_MS = 10_000;

export async function checkWalletSignature(rpcUrls: ReadonlyMap<number, string>, input: SignatureCheck): Promise<void> {
  const { address, message, signature } = input;
  const rpc = rpcUrls.get(input.chainId);
  if (rpc) {
    const client = createPublicClient({ transport: http(rpc, { timeout: RPC_TIMEOUT_MS, retryCount: 0 }) });
    // A malformed signature or a reverting wallet ends here: not proven, so refused. A node that cannot be reached
    // proves nothing either way, so that is said as it is (503) rather than blamed on the signature.
    const valid = await client.verifyMessage({ address, message, signature }).catch((error: unknown) => {
      if (isChainUnreachable(error)) throw new GatehouseError('chain_unavailable', undefined, { cause: error });
      return false;
    });
    if (valid) return;
    await assertChainReachable(client);
    throw new GatehouseError('wallet_signature_invalid');
  }
  if (await verifyMessage({ address, message, signature }).catch(() => false)) return;
  const plainShape = /^0x[0-9a-fA-F]*$/.test(signature) && size(signature) === 65 && !isErc6492Signature(signature);
  if (!plainShape)
    throw new GatehouseError(
      'wallet_contract_unverifiable',
      `This looks like a smart-contract wallet's signature; checking it needs a JSON-RPC node for chain ${input.chainId}, which this service does not have. Use a plain account, or ask the administrator to configure one.`,
    );
  // 65 bytes may still be a deployed contract wallet's (EIP-1271) signature: say why it could not be checked.
  throw new GatehouseError(
    'wallet_signature_invalid',
    `The signature does not prove that this wallet signed the message. A smart-contract wallet's signature cannot be checked here: there is no JSON-RPC node for chain ${input.chainId}.`,
  );
}
