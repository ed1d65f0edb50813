// Sign In With Farcaster (FIP-11, the AuthKit relay flow): start opens a relay channel for a nonce of ours, bound to
// this browser's login cookie, and hands the page the relay's deep link (shown as a QR code); the page polls, and
// when the relay reports the Farcaster app's signed message, the channel is spent once and the message must be ours
// (our domain, our issuer as uri, this channel's nonce, unexpired) and signed by the custody address the ID registry
// on OP Mainnet holds for the fid it names. The verified fid becomes the sign-in method `farcaster:<fid>`; the
// identity rules in src/identity decide the rest. The relay is a courier, never a witness: nothing it says is
// believed without the signature and the registry.
import type { AppClient, StatusAPIResponse } from '@farcaster/auth-client';
import type { Hex, PublicClient } from 'viem';
import { parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { tokenHash } from '../../crypto/primitives.ts';
import { GatehouseError } from '../../http/errors.ts';
import type { ExternalAccount } from '../../identity/external-accounts.ts';
import type { Sub } from '../../identity/ids.ts';
import type { SessionStart } from '../../session/http.ts';
import { assertChainReachable, isChainUnreachable } from './chain-errors.ts';
import type { FarcasterDeps, RequestFacts } from './deps.ts';
import { farcasterClient, relayCall } from './farcaster-relay.ts';
import { consumeChannel, findOpenChannel, insertChannel, type OpenChannel } from './farcaster-store.ts';
import { MESSAGE_SECONDS, newNonce } from './message.ts';
import { settleProvenAccount } from './proven-account.ts';
import type { Purpose } from './store.ts';

export const PROVIDER = 'farcaster';

export interface FarcasterStartInput {
  purpose: Purpose;
  identityId: Sub | null;
  /** The login cookie's value: only the browser holding it can complete the channel. */
  cookie: string;
}

export async function startFarcaster(deps: FarcasterDeps, facts: RequestFacts, input: FarcasterStartInput) {
  if (!deps.enabled) throw new GatehouseError('provider_not_available');
  const now = deps.clock();
  const nonce = newNonce();
  const expiresAt = new Date(now.getTime() + MESSAGE_SECONDS * 1000);
  const client = farcasterClient(deps.relayUrl, deps.rpcUrl);
  const channel = await relayCall(
    client.createChannel({
      siweUri: deps.issuer,
      domain: deps.domain,
      nonce,
      expirationTime: expiresAt.toISOString(),
      requestId: facts.requestId,
      acceptAuthAddress: false,
    }),
  );
  // A relay that refuses the channel, or replaces our nonce with its own, cannot carry this sign-in.
  if (channel.isError || !channel.response.ok || channel.data.nonce !== nonce || !channel.data.channelToken)
    throw new GatehouseError('farcaster_relay_unavailable', undefined, { cause: channel });
  await insertChannel(deps.sql, {
    nonce,
    cookieHash: tokenHash(input.cookie),
    channelToken: channel.data.channelToken,
    purpose: input.purpose,
    identityId: input.identityId,
    createdAt: now,
    expiresAt,
  });
  return { channel: nonce, url: channel.data.url, expiresIn: MESSAGE_SECONDS };
}

export interface FarcasterPollInput {
  purpose: Purpose;
  /** The channel's nonce, as start returned it. */
  channel: string;
  cookie: string | null;
  /** The identity of the browser's live session, if any: a link completes only for the identity that started it. */
  signedIn: Sub | null;
}

export type FarcasterOutcome =
  | { kind: 'pending' }
  | { kind: 'signed_in'; start: SessionStart }
  | { kind: 'linked'; subject: string };

export async function pollFarcaster(
  deps: FarcasterDeps,
  facts: RequestFacts,
  input: FarcasterPollInput,
): Promise<FarcasterOutcome> {
  if (!deps.enabled) throw new GatehouseError('provider_not_available');
  const now = deps.clock();
  const cookieHash = input.cookie ? tokenHash(input.cookie) : null;
  const open = cookieHash ? await findOpenChannel(deps.sql, input.channel, cookieHash, now) : null;
  if (!open || !cookieHash || open.purpose !== input.purpose) throw new GatehouseError('wallet_message_invalid');
  const client = farcasterClient(deps.relayUrl, deps.rpcUrl);
  const status = await relayCall(client.status({ channelToken: open.channelToken }));
  // The relay forgot the channel (its own expiry) or refuses our token: this attempt cannot complete.
  if (status.isError || !status.response.ok) throw new GatehouseError('wallet_message_invalid');
  if (status.data.state !== 'completed') return { kind: 'pending' };
  // Spent before it is checked, as for Ethereum: a completion that fails cannot be retried on the same nonce.
  if (!(await consumeChannel(deps.sql, open.nonce, cookieHash, now)))
    throw new GatehouseError('wallet_message_invalid');
  const fid = await verifiedFid(deps, client, open, status.data, now);
  return finish(deps, facts, open, input.signedIn, accountOf(fid, status.data), now);
}

/** The fid the message proves, or the refusal that says which part failed. */
async function verifiedFid(
  deps: FarcasterDeps,
  client: AppClient,
  open: OpenChannel,
  answer: StatusAPIResponse,
  now: Date,
): Promise<number> {
  const { message, signature } = answer;
  if (!message || !signature) throw new GatehouseError('wallet_message_invalid');
  // Our own reading first, on our clock: the message names our domain, our issuer, this channel's nonce, unexpired.
  const parsed = parseSiweMessage(message);
  const ours =
    validateSiweMessage({ message: parsed, domain: deps.domain, nonce: open.nonce, time: now }) &&
    parsed.uri === deps.issuer &&
    parsed.expirationTime !== undefined &&
    parsed.expirationTime <= open.expiresAt;
  if (!ours) throw new GatehouseError('wallet_message_invalid');
  const verified = await client.verifySignInMessage({
    nonce: open.nonce,
    domain: deps.domain,
    message,
    signature: signature as Hex,
    acceptAuthAddress: false,
  });
  if (!verified.isError) return verified.fid;
  const error = verified.error;
  // 'unavailable': the ID registry could not be read (node down, or no registry there: another chain). Either way the
  // custody address is unknown, which says nothing against the person.
  if (error?.errCode === 'unavailable' || isChainUnreachable(error))
    throw new GatehouseError('chain_unavailable', undefined, { cause: error });
  // Not SIWF-shaped (statement, chain 10, exactly one farcaster://fid resource).
  if (error?.errCode === 'bad_request.validation_failure')
    throw new GatehouseError('wallet_message_invalid', undefined, { cause: error });
  // The rest: the signature does not recover to the signer, or the signer is not the fid's custody address (an
  // unknown fid has none); unless the node was unreachable, which viem reports as "not verified" too.
  await assertChainReachable(client.ethereum.publicClient as PublicClient);
  throw new GatehouseError('farcaster_signature_invalid', undefined, { cause: error });
}

async function finish(
  deps: FarcasterDeps,
  facts: RequestFacts,
  open: OpenChannel,
  signedIn: Sub | null,
  account: ExternalAccount,
  now: Date,
): Promise<FarcasterOutcome> {
  const proven = { provider: PROVIDER, account, purpose: open.purpose, startedBy: open.identityId, signedIn };
  return settleProvenAccount(deps, facts, proven, now);
}

/**
 * Keyed by the fid alone: custody can move to another address and the account stays the same. The relay's profile
 * (username, display name) only labels the method and may name a new identity; it proves nothing, so it is never
 * used to find one, and no email is ever taken from it.
 */
function accountOf(fid: number, profile: StatusAPIResponse): ExternalAccount {
  const sameFid = profile.fid === fid;
  const username = sameFid && profile.username ? profile.username : null;
  const label = username ? `@${username}, fid ${fid}` : `fid ${fid}`;
  const displayName = (sameFid && profile.displayName?.trim()) || (username ? `@${username}` : `Farcaster ${fid}`);
  return { kind: 'web3', provider: PROVIDER, subject: `farcaster:${fid}`, label, displayName, email: null };
}
