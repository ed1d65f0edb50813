// An OP-Mainnet-style chain for Sign In With Farcaster tests, offline: ganache with chain id 10 and a stand-in for
// the Farcaster ID registry (compiled here by solc-js) placed at the registry's real address, so the service reads
// it exactly as it would on OP Mainnet. `register` records a fid's custody address, as the real registry does when
// an account is created.
import type { Hex } from 'viem';
import { ID_REGISTRY_ADDRESS } from '../../src/login/web3/farcaster-relay.ts';
import { compileSolidity, startGanache } from './local-chain.ts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract IdRegistryStandIn {
  mapping(address => uint256) public idOf;
  mapping(uint256 => address) public custodyOf;
  function register(uint256 fid, address custody) external {
    idOf[custody] = fid;
    custodyOf[fid] = custody;
  }
}`;

export async function startFarcasterChain() {
  const { url, publicClient, wallet } = await startGanache(10);
  const registry = compileSolidity(SOURCE).IdRegistryStandIn;
  if (!registry) throw new Error('IdRegistryStandIn did not compile');
  const hash = await wallet.deployContract({ abi: registry.abi, bytecode: `0x${registry.evm.bytecode.object}` });
  const deployed = (await publicClient.getTransactionReceipt({ hash })).contractAddress as Hex;
  // The real address cannot be deployed to; ganache's evm_setAccountCode puts the deployed code there (its storage
  // starts empty, so every fid is unknown until registered).
  const code = await publicClient.getCode({ address: deployed });
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_setAccountCode', params: [ID_REGISTRY_ADDRESS, code] }),
  });
  const set = (await answer.json()) as { result?: boolean; error?: unknown };
  if (set.result !== true) throw new Error(`evm_setAccountCode failed: ${JSON.stringify(set)}`);

  /** Records `custody` as the custody address of `fid`. */
  const register = async (fid: number, custody: Hex) => {
    const tx = await wallet.writeContract({
      address: ID_REGISTRY_ADDRESS,
      abi: registry.abi,
      functionName: 'register',
      args: [BigInt(fid), custody],
    });
    await publicClient.getTransactionReceipt({ hash: tx });
  };
  return { url, register };
}
