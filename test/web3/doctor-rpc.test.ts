// `gatehouse doctor` on providers.ethereum.rpc_urls: each node must answer eth_chainId with its configured chain
// (checked against a local ganache chain); another chain's node or no answer fails; a placeholder host is not used.
// providers.farcaster.rpc_url: chain 10 with the ID registry's code at its address, else a failure saying which.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ethereumRpcChecks, farcasterRpcChecks } from '../../src/login/web3/doctor-checks.ts';
import { freePort } from '../helpers/browser-app.ts';
import { makeConfig } from '../helpers/config.ts';
import { startFarcasterChain } from '../helpers/farcaster-chain.ts';
import { startLocalChain } from '../helpers/local-chain.ts';

const chain = await startLocalChain(10);
const withNodes = (chainIds: number[], rpcUrls: { chain_id: number; url: string }[]) =>
  makeConfig({ providers: { ethereum: { enabled: true, chain_ids: chainIds, rpc_urls: rpcUrls } } });

describe('gatehouse doctor: Ethereum JSON-RPC nodes', () => {
  test('passes a node that answers eth_chainId with its configured chain', async () => {
    assert.deepEqual(await ethereumRpcChecks(withNodes([10], [{ chain_id: 10, url: chain.url }]), 5000), [
      { status: 'ok', name: 'ethereum chain 10', detail: `${chain.url} answers eth_chainId 10` },
    ]);
  });

  test('fails a node of another chain, and one that does not answer', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const checks = await ethereumRpcChecks(
      withNodes(
        [1, 5],
        [
          { chain_id: 1, url: chain.url },
          { chain_id: 5, url: closed },
        ],
      ),
      5000,
    );
    assert.deepEqual(checks[0], {
      status: 'fail',
      name: 'ethereum chain 1',
      detail: `${chain.url} answers eth_chainId 10, not 1: a node of another chain`,
    });
    assert.equal(checks[1]?.status, 'fail');
    assert.match(checks[1]?.detail ?? '', new RegExp(`^${closed} did not answer eth_chainId: `));
  });

  test('says plain accounts only when no node is configured or its host is a placeholder', async () => {
    const expected = [
      {
        status: 'info',
        name: 'ethereum',
        detail: 'no rpc_urls: plain accounts only; smart-contract wallets are refused',
      },
    ];
    assert.deepEqual(await ethereumRpcChecks(withNodes([1], []), 5000), expected);
    assert.deepEqual(
      await ethereumRpcChecks(withNodes([1], [{ chain_id: 1, url: 'https://rpc.example.com' }]), 5000),
      expected,
    );
  });

  test('says nothing when Ethereum sign-in is off', async () => {
    assert.deepEqual(await ethereumRpcChecks(makeConfig(), 5000), []);
  });
});

describe('gatehouse doctor: the Farcaster OP Mainnet node', async () => {
  const farcasterChain = await startFarcasterChain();
  const withNode = (rpcUrl: string) =>
    makeConfig({
      providers: { farcaster: { enabled: true, relay_url: 'https://relay.farcaster.xyz', rpc_url: rpcUrl } },
    });

  test('passes a chain-10 node holding the ID registry', async () => {
    assert.deepEqual(await farcasterRpcChecks(withNode(farcasterChain.url), 5000), [
      {
        status: 'ok',
        name: 'farcaster id registry',
        detail: `${farcasterChain.url} answers eth_chainId 10 and holds the ID registry`,
      },
    ]);
  });

  test('fails a chain-10 node without the registry, a node of another chain, and one that does not answer', async () => {
    assert.deepEqual(await farcasterRpcChecks(withNode(chain.url), 5000), [
      {
        status: 'fail',
        name: 'farcaster id registry',
        detail: `${chain.url} has no contract at the ID registry's address 0x00000000Fc6c5F01Fc30151999387Bb99A9f489b`,
      },
    ]);
    const mainnet = await startLocalChain(1);
    assert.deepEqual(await farcasterRpcChecks(withNode(mainnet.url), 5000), [
      {
        status: 'fail',
        name: 'farcaster id registry',
        detail: `${mainnet.url} answers eth_chainId 1, not 10 (OP Mainnet)`,
      },
    ]);
    const closed = `http://127.0.0.1:${await freePort()}`;
    const [down] = await farcasterRpcChecks(withNode(closed), 5000);
    assert.equal(down?.status, 'fail');
    assert.match(down?.detail ?? '', new RegExp(`^${closed} did not answer: `));
  });

  test('says nothing when Farcaster sign-in is off', async () => {
    assert.deepEqual(await farcasterRpcChecks(makeConfig(), 5000), []);
  });
});
