// A local Ethereum chain for tests, offline: ganache's JSON-RPC server in this process, with a small EIP-1271 wallet
// (valid when its owner's key signed the hash) and a CREATE2 factory for it, compiled here by solc-js. Ganache's
// funded deployer account (a viem local account) sends the transactions.
import { after } from 'node:test';
import ganache from 'ganache';
import solc from 'solc';
import { type Abi, createPublicClient, createWalletClient, type Hex, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract OwnedWallet {
  address public immutable owner;
  constructor(address o) { owner = o; }
  function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
    if (signature.length != 65) return 0xffffffff;
    bytes32 r; bytes32 s; uint8 v;
    assembly {
      r := calldataload(signature.offset)
      s := calldataload(add(signature.offset, 32))
      v := byte(0, calldataload(add(signature.offset, 64)))
    }
    address signer = ecrecover(hash, v, r, s);
    return signer != address(0) && signer == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
  }
}
contract WalletFactory {
  function deploy(address o, bytes32 salt) external returns (address) {
    return address(new OwnedWallet{salt: salt}(o));
  }
  function predict(address o, bytes32 salt) external view returns (address) {
    bytes32 code = keccak256(abi.encodePacked(type(OwnedWallet).creationCode, abi.encode(o)));
    return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, code)))));
  }
}`;

export interface Compiled {
  abi: Abi;
  evm: { bytecode: { object: string } };
}

/** Compiles one Solidity source with solc-js and returns its contracts by name; a compile error throws. */
export function compileSolidity(source: string): Record<string, Compiled> {
  const input = {
    language: 'Solidity',
    sources: { 'Source.sol': { content: source } },
    // Ganache 7 runs Shanghai at most: no Cancun opcodes.
    settings: { evmVersion: 'shanghai', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    contracts: { 'Source.sol': Record<string, Compiled> };
    errors?: { severity: string; formattedMessage: string }[];
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  return output.contracts['Source.sol'];
}

/** Ganache's JSON-RPC server on a free loopback port, closed after the file; one funded deployer (a viem account). */
export async function startGanache(chainId: number) {
  const deployerKey = generatePrivateKey();
  const deployer = privateKeyToAccount(deployerKey);
  const server = ganache.server({
    logging: { quiet: true },
    chain: { chainId },
    wallet: { accounts: [{ secretKey: deployerKey, balance: '0x56bc75e2d63100000' }] },
  });
  await server.listen(0, '127.0.0.1');
  after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const chain = {
    id: chainId,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  } as const;
  const publicClient = createPublicClient({ chain, transport: http(url) });
  const wallet = createWalletClient({ chain, transport: http(url), account: deployer });
  return { url, publicClient, wallet };
}

export async function startLocalChain(chainId = 1) {
  const { url, publicClient, wallet } = await startGanache(chainId);
  const contracts = compileSolidity(SOURCE) as Record<'OwnedWallet' | 'WalletFactory', Compiled>;
  const factoryAbi = contracts.WalletFactory.abi;
  const hash = await wallet.deployContract({
    abi: factoryAbi,
    bytecode: `0x${contracts.WalletFactory.evm.bytecode.object}`,
  });
  const receipt = await publicClient.getTransactionReceipt({ hash });
  const factory = receipt.contractAddress as Hex;

  /** Where the owner's wallet with this salt is (or will be) deployed. */
  const predict = async (owner: Hex, salt: Hex) =>
    (await publicClient.readContract({
      address: factory,
      abi: factoryAbi,
      functionName: 'predict',
      args: [owner, salt],
    })) as Hex;
  /** Deploys the owner's wallet with this salt and returns its address. */
  const deployWallet = async (owner: Hex, salt: Hex) => {
    const tx = await wallet.writeContract({
      address: factory,
      abi: factoryAbi,
      functionName: 'deploy',
      args: [owner, salt],
    });
    await publicClient.getTransactionReceipt({ hash: tx });
    return predict(owner, salt);
  };
  const isDeployed = async (address: Hex) => ((await publicClient.getCode({ address })) ?? '0x') !== '0x';
  return { url, factory, factoryAbi, predict, deployWallet, isDeployed };
}
