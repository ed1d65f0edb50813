// The EIP-4361 message the server issues: every field is ours except the address and the chain the wallet chose
// from our allow-list. Built and parsed by viem's siwe utilities, never by hand.
import { randomBytes } from 'node:crypto';
import { getAddress, isAddress } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { InvalidRequest } from '../../http/errors.ts';
import type { EthereumDeps } from './deps.ts';

/** Short enough that a message left in a wallet prompt is soon useless; long enough to read it and approve. */
export const MESSAGE_SECONDS = 300;

/**
 * 128 random bits as 32 hex characters: EIP-4361 asks for at least 8 alphanumeric characters; we want far more than
 * 96 bits so a nonce cannot be guessed, and hex keeps it inside the grammar's alphanumeric set.
 */
export const newNonce = () => randomBytes(16).toString('hex');

export interface MessageRequest {
  address: string;
  chainId: number;
  nonce: string;
  requestId: string;
  issuedAt: Date;
}

/** Checks the wallet's choices against configuration; the checksummed address is what the message names. */
export function walletChoice(deps: EthereumDeps, address: string, chainId: number) {
  if (!isAddress(address, { strict: false })) throw new InvalidRequest('address is not an Ethereum address');
  if (!deps.chainIds.includes(chainId))
    throw new InvalidRequest(`chain_id must be one of the accepted chains: ${deps.chainIds.join(', ')}`);
  return { address: getAddress(address), chainId };
}

export function buildMessage(deps: EthereumDeps, request: MessageRequest): string {
  const issuer = new URL(deps.issuer);
  return createSiweMessage({
    domain: issuer.host,
    uri: deps.issuer,
    statement: deps.statement,
    version: '1',
    address: getAddress(request.address),
    chainId: request.chainId,
    nonce: request.nonce,
    issuedAt: request.issuedAt,
    expirationTime: new Date(request.issuedAt.getTime() + MESSAGE_SECONDS * 1000),
    requestId: request.requestId,
  });
}
