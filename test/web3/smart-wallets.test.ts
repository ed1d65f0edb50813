// POST /auth/web3/ethereum/complete with smart-contract wallets, against a local chain (ganache, offline) named in
// providers.ethereum.rpc_urls: a deployed EIP-1271 wallet signs in when its owner signed and is refused otherwise;
// an undeployed wallet signs in with an EIP-6492-wrapped signature (and stays undeployed). Without a JSON-RPC URL
// for the chain, a smart wallet's signature is refused with a sentence saying why, while plain accounts still work.
// A node that cannot be reached answers 503 chain_unavailable for a smart wallet (plain accounts need no node).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { encodeFunctionData, type Hex, keccak256, serializeErc6492Signature, toHex } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { cookieFrom, JSON_HEADERS } from '../helpers/accounts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/browser-app.ts';
import { startLocalChain } from '../helpers/local-chain.ts';
import { startMailbox } from '../helpers/mailbox.ts';

const chain = await startLocalChain(1);
const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const withEthereum = (rpcUrls: { chain_id: number; url: string }[]) => ({
  ...config,
  providers: {
    ...config.providers,
    ethereum: { ...config.providers.ethereum, enabled: true, chain_ids: [1], rpc_urls: rpcUrls },
  },
});
const t = await startTestApp({ config: withEthereum([{ chain_id: 1, url: chain.url }]) });
const noRpc = await startTestApp({ config: withEthereum([]) });

const owner = () => privateKeyToAccount(generatePrivateKey());
const salt = (label: string) => keccak256(toHex(`${label}-${Math.random()}`));

/** Signs the served message with `sign` for the wallet at `address`. */
async function signIn(app: TestApp, address: Hex, sign: (message: string) => Promise<Hex>) {
  const started = await app.app.inject({
    method: 'POST',
    url: '/auth/web3/ethereum/start',
    headers: JSON_HEADERS,
    payload: { address, chain_id: 1 },
  });
  assert.equal(started.statusCode, 200, started.body);
  const { message } = started.json() as { message: string };
  return app.app.inject({
    method: 'POST',
    url: '/auth/web3/ethereum/complete',
    headers: { ...JSON_HEADERS, cookie: cookieFrom(started, 'gatehouse_login') },
    payload: { message, signature: await sign(message) },
  });
}

const byOwner = (key: PrivateKeyAccount) => (message: string) => key.signMessage({ message });

function assertRefused(response: LightMyRequestResponse, error: string, description: string) {
  assert.equal(response.statusCode, 400, response.body);
  assert.deepEqual(response.json(), {
    error,
    error_description: description,
    request_id: response.headers['x-request-id'],
  });
}

const methodCount = async (app: TestApp, address: Hex) =>
  (await app.sql`select 1 from sign_in_methods where external_subject = ${`eip155:1:${address}`}`).length;

describe('POST /auth/web3/ethereum/complete: smart-contract wallets', () => {
  test('a deployed EIP-1271 wallet whose owner signed gets a session keyed by the wallet address', async () => {
    const key = owner();
    const wallet = await chain.deployWallet(key.address, salt('deployed'));
    const response = await signIn(t, wallet, byOwner(key));
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), {
      aal: 'aal1',
      amr: ['pop'],
      enrollment_required: false,
      second_factor_required: false,
    });
    assert.equal(await methodCount(t, wallet), 1);
  });

  test('a deployed wallet signed by a key that is not its owner is refused with wallet_signature_invalid', async () => {
    const wallet = await chain.deployWallet(owner().address, salt('stranger'));
    const response = await signIn(t, wallet, byOwner(owner()));
    assertRefused(
      response,
      'wallet_signature_invalid',
      'The signature does not prove that this wallet signed the message.',
    );
    assert.equal(await methodCount(t, wallet), 0);
  });

  test('an undeployed wallet signs in with an EIP-6492 signature and stays undeployed', async () => {
    const key = owner();
    const walletSalt = salt('counterfactual');
    const wallet = await chain.predict(key.address, walletSalt);
    assert.equal(await chain.isDeployed(wallet), false);
    const wrapped = async (message: string) =>
      serializeErc6492Signature({
        address: chain.factory,
        data: encodeFunctionData({ abi: chain.factoryAbi, functionName: 'deploy', args: [key.address, walletSalt] }),
        signature: await key.signMessage({ message }),
      });
    const response = await signIn(t, wallet, wrapped);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(await methodCount(t, wallet), 1);
    assert.equal(await chain.isDeployed(wallet), false);

    const wrongOwner = async (message: string) =>
      serializeErc6492Signature({
        address: chain.factory,
        data: encodeFunctionData({ abi: chain.factoryAbi, functionName: 'deploy', args: [key.address, walletSalt] }),
        signature: await owner().signMessage({ message }),
      });
    assertRefused(
      await signIn(t, wallet, wrongOwner),
      'wallet_signature_invalid',
      'The signature does not prove that this wallet signed the message.',
    );
  });

  test('a plain account still signs in when the chain has a JSON-RPC URL', async () => {
    const key = owner();
    assert.equal((await signIn(t, key.address, byOwner(key))).statusCode, 200);
  });
});

describe('POST /auth/web3/ethereum/complete: no JSON-RPC URL for the chain', () => {
  test('refuses an EIP-6492 signature with wallet_contract_unverifiable, naming the chain', async () => {
    const key = owner();
    const walletSalt = salt('no-rpc');
    const wallet = await chain.predict(key.address, walletSalt);
    const wrapped = async (message: string) =>
      serializeErc6492Signature({
        address: chain.factory,
        data: encodeFunctionData({ abi: chain.factoryAbi, functionName: 'deploy', args: [key.address, walletSalt] }),
        signature: await key.signMessage({ message }),
      });
    assertRefused(
      await signIn(noRpc, wallet, wrapped),
      'wallet_contract_unverifiable',
      "This looks like a smart-contract wallet's signature; checking it needs a JSON-RPC node for chain 1, which this service does not have. Use a plain account, or ask the administrator to configure one.",
    );
    assert.equal(await methodCount(noRpc, wallet), 0);
  });

  test("refuses a deployed wallet's EIP-1271 signature with wallet_signature_invalid, saying why", async () => {
    const key = owner();
    const wallet = await chain.deployWallet(key.address, salt('no-rpc-deployed'));
    assertRefused(
      await signIn(noRpc, wallet, byOwner(key)),
      'wallet_signature_invalid',
      "The signature does not prove that this wallet signed the message. A smart-contract wallet's signature cannot be checked here: there is no JSON-RPC node for chain 1.",
    );
  });

  test('a plain account still signs in', async () => {
    const key = owner();
    assert.equal((await signIn(noRpc, key.address, byOwner(key))).statusCode, 200);
  });
});

describe('POST /auth/web3/ethereum/complete: the JSON-RPC node cannot be reached', async () => {
  // A port that was free a moment ago and is closed now: every request to it is refused.
  const down = await startTestApp({
    config: withEthereum([{ chain_id: 1, url: `http://127.0.0.1:${await freePort()}` }]),
  });

  test("a contract wallet's signature answers 503 chain_unavailable, not wallet_signature_invalid", async () => {
    const key = owner();
    const wallet = await chain.deployWallet(key.address, salt('node-down'));
    const response = await signIn(down, wallet, byOwner(key));
    assert.equal(response.statusCode, 503, response.body);
    assert.deepEqual(response.json(), {
      error: 'chain_unavailable',
      error_description: 'The blockchain node that checks this sign-in cannot be reached; retry later.',
      request_id: response.headers['x-request-id'],
    });
    assert.equal(await methodCount(down, wallet), 0);
  });

  test('a plain account still signs in: its signature needs no node', async () => {
    const key = owner();
    assert.equal((await signIn(down, key.address, byOwner(key))).statusCode, 200);
  });
});
