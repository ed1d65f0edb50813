// Sign-In with Ethereum (EIP-4361), for plain accounts and smart-contract wallets (./signature.ts): start issues a message bound to this browser's
// login cookie; complete accepts a signature only over exactly that message, unexpired, for our domain and an
// allowed chain, spending its nonce once. The verified address becomes the sign-in method
// `eip155:<chainId>:<checksummed address>` (CAIP-10), and the identity rules in src/identity decide the rest.
import { getAddress, type Hex } from 'viem';
import { parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { tokenHash } from '../../crypto/primitives.ts';
import { GatehouseError } from '../../http/errors.ts';
import type { ExternalAccount } from '../../identity/external-accounts.ts';
import type { Sub } from '../../identity/ids.ts';
import type { EthereumDeps, RequestFacts } from './deps.ts';
import { buildMessage, MESSAGE_SECONDS, newNonce, walletChoice } from './message.ts';
import { type ProvenOutcome, settleProvenAccount } from './proven-account.ts';
import { checkWalletSignature } from './signature.ts';
import { consumeIssuedMessage, insertIssuedMessage, type Purpose } from './store.ts';

export const PROVIDER = 'ethereum';

export interface StartInput {
  address: string;
  chainId: number;
  purpose: Purpose;
  identityId: Sub | null;
  /** The login cookie's value: the message can only be completed by the browser holding it. */
  cookie: string;
}

export async function startEthereum(deps: EthereumDeps, facts: RequestFacts, input: StartInput) {
  if (!deps.enabled) throw new GatehouseError('provider_not_available');
  const { address, chainId } = walletChoice(deps, input.address, input.chainId);
  const now = deps.clock();
  const nonce = newNonce();
  const message = buildMessage(deps, { address, chainId, nonce, requestId: facts.requestId, issuedAt: now });
  await insertIssuedMessage(deps.sql, {
    nonce,
    cookieHash: tokenHash(input.cookie),
    provider: PROVIDER,
    purpose: input.purpose,
    identityId: input.identityId,
    message,
    createdAt: now,
    expiresAt: new Date(now.getTime() + MESSAGE_SECONDS * 1000),
  });
  return { message, expiresIn: MESSAGE_SECONDS };
}

export interface CompleteInput {
  /** Which route completes: a sign-in message cannot link, nor a link message sign in. */
  purpose: Purpose;
  message: string;
  signature: Hex;
  cookie: string | null;
  /** The identity of the browser's live session, if any: a link completes only for the identity that started it. */
  signedIn: Sub | null;
}

export type EthereumOutcome = ProvenOutcome;

/** The issued message this text claims to be, spent now; refused unless every field is still what we issued. */
async function spendIssuedMessage(deps: EthereumDeps, input: CompleteInput) {
  const parsed = parseSiweMessage(input.message);
  const now = deps.clock();
  const issued =
    parsed.nonce && input.cookie
      ? await consumeIssuedMessage(deps.sql, parsed.nonce, tokenHash(input.cookie), now)
      : null;
  // Byte for byte: a changed field (domain, uri, chain, statement, expiry, address) is not the message we issued.
  // The nonce is spent even so, so an altered attempt cannot be retried against the same nonce.
  if (!issued || issued.provider !== PROVIDER || issued.purpose !== input.purpose || issued.message !== input.message)
    throw new GatehouseError('wallet_message_invalid');
  // Defence in depth over the stored copy: our domain, an allowed chain, not yet expired (EIP-4361 §"Verifying").
  const valid = validateSiweMessage({
    message: parsed,
    domain: new URL(deps.issuer).host,
    nonce: parsed.nonce,
    time: now,
  });
  if (!valid || parsed.chainId === undefined || !deps.chainIds.includes(parsed.chainId) || !parsed.address)
    throw new GatehouseError('wallet_message_invalid');
  return { issued, address: getAddress(parsed.address), chainId: parsed.chainId, now };
}

export async function completeEthereum(
  deps: EthereumDeps,
  facts: RequestFacts,
  input: CompleteInput,
): Promise<EthereumOutcome> {
  if (!deps.enabled) throw new GatehouseError('provider_not_available');
  const { issued, address, chainId, now } = await spendIssuedMessage(deps, input);
  await checkWalletSignature(deps.rpcUrls, {
    chainId,
    address,
    message: input.message,
    signature: input.signature,
  });
  return settleProvenAccount(
    deps,
    facts,
    {
      provider: PROVIDER,
      account: accountOf(chainId, address),
      purpose: issued.purpose,
      startedBy: issued.identityId,
      signedIn: input.signedIn,
    },
    now,
  );
}

/** CAIP-10 account id: the chain is part of the key, so the same address on two chains is two methods. */
const accountOf = (chainId: number, address: string): ExternalAccount => ({
  kind: 'web3',
  provider: PROVIDER,
  subject: `eip155:${chainId}:${address}`,
  label: `${address.slice(0, 6)}…${address.slice(-4)}`,
  displayName: `${address.slice(0, 6)}…${address.slice(-4)}`,
  email: null,
});
