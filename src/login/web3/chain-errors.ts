// Telling "the chain did not answer" from "the chain answered no": a JSON-RPC node that cannot be reached (refused,
// timed out, answering with an HTTP error) proves nothing about a signature, so the person is told the chain is
// unavailable (503 chain_unavailable, retry later) instead of being told their signature is wrong.
import { HttpRequestError, TimeoutError } from 'viem';

/** Whether this error, or any error it wraps (viem and @farcaster/auth-client both chain `cause`), is a transport failure. */
export function isChainUnreachable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++)
    if (e instanceof HttpRequestError || e instanceof TimeoutError) return true;
  return false;
}
