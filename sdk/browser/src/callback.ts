// handleCallback(): the redirect back from Gatehouse. The transaction is taken (removed) first, then state and iss
// are checked before the code is spent, so a forged or mixed-up response never reaches the token endpoint.
import type { GatehouseConfig } from './config.ts';
import { discover } from './discovery.ts';
import { AuthorizationError, IssuerMismatch, MissingTransaction, StateMismatch } from './errors.ts';
import { requestTokens, type Tokens } from './token.ts';
import { takeTransaction } from './transaction.ts';

/** Completes the sign-in from the callback URL (default: the current one) and returns verified tokens. */
export async function handleCallback(config: GatehouseConfig, callbackUrl: string = location.href): Promise<Tokens> {
  const transaction = takeTransaction(config);
  if (!transaction) throw new MissingTransaction('no sign-in is in progress in this tab');
  const query = new URL(callbackUrl).searchParams;
  if (query.get('state') !== transaction.state)
    throw new StateMismatch('the callback state is not the one this sign-in sent');
  // RFC 9207 §2.4: compare iss exactly, and insist on it when the issuer says it always sends one.
  const metadata = await discover(config);
  const iss = query.get('iss');
  if (iss !== null ? iss !== config.issuer : metadata.authorization_response_iss_parameter_supported === true)
    throw new IssuerMismatch(`the callback comes from issuer ${iss ?? '(none)'}, not ${config.issuer}`);
  const error = query.get('error');
  if (error !== null) throw new AuthorizationError(error, query.get('error_description') ?? undefined);
  const code = query.get('code');
  if (!code) throw new AuthorizationError('invalid_request', 'the callback has no code');
  return requestTokens(
    config,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: transaction.redirectUri,
      code_verifier: transaction.verifier,
    },
    transaction.nonce,
  );
}
