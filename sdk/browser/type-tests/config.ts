// Compile-only checks of the public types (`npm run typecheck`): a public client has no secret to give, and error
// codes narrow.
import type { GatehouseConfig, GatehouseError } from '@gatehouse/browser';

export const withoutSecret: GatehouseConfig = {
  issuer: 'https://id.test',
  clientId: 'cli_a',
  redirectUri: 'https://a',
};

export const withSecret: GatehouseConfig = {
  issuer: 'https://id.test',
  clientId: 'cli_a',
  redirectUri: 'https://a',
  // @ts-expect-error there is no client secret option: anything shipped to a browser is public (RFC 6749 §2.1)
  clientSecret: 'shh',
};

export function describeError(error: GatehouseError): string {
  switch (error.code) {
    case 'token_error':
      return `the server said ${error.message}`;
    case 'state_mismatch':
    case 'issuer_mismatch':
      return 'the callback was not ours';
    default:
      return error.code;
  }
}
