// grant_type=urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693 §2) for confidential clients an administrator
// allowed audiences (token-exchange.ts holds the rules; docs/oauth.md "Token exchange"). The subject token is an
// access token Gatehouse issued to this client, or for an API it serves; the answer is an access token for the one
// `resource`/`audience` asked, with `issued_token_type` (§2.2.1) and never a refresh token. A DPoP-bound subject
// token is exchanged only with a DPoP proof, and the new token is bound to that proof's key: an exchange never turns
// a sender-constrained token into a bearer one (docs/decisions.md "Token exchange (RFC 8693) for product APIs").

import { isConfidential } from '../../clients/client-rules.ts';
import { parseScope } from '../../clients/scopes.ts';
import { normalizeEmptyPath } from '../../clients/uri-normalization.ts';
import { echoInput, InvalidRequest } from '../../http/errors.ts';
import { authenticateClient } from '../client-auth.ts';
import { requireBindingIfRegistered } from '../dpop.ts';
import { InvalidDpopProof, InvalidGrant, InvalidScope, InvalidTarget, UnauthorizedClient } from '../errors.ts';
import {
  ACCESS_TOKEN_TYPE,
  auditedExchange,
  exchangeAccessToken,
  requireExchangeAllowed,
  TOKEN_EXCHANGE_GRANT,
} from '../token-exchange.ts';
import { holdsToken } from '../token-holder.ts';
import { accessTokenRef, isAccessTokenLive } from '../token-state.ts';
import type { Grant } from './types.ts';

type Parameter =
  | 'subject_token'
  | 'subject_token_type'
  | 'resource'
  | 'audience'
  | 'scope'
  | 'requested_token_type'
  | 'actor_token'
  | 'actor_token_type';

type Params = Partial<Record<Parameter, string>>;

/** RFC 8693 §2.1: the one audience the token is for, from `resource` or `audience` (one token has one `aud`). */
function targetOf(params: Params): string {
  const named = [params.resource, params.audience].filter((v): v is string => v !== undefined && v !== '');
  if (named.length === 0)
    throw new InvalidRequest('resource or audience is required: name the API the new token is for');
  const [first, second] = named.map(normalizeEmptyPath) as [string, string | undefined];
  if (second !== undefined && second !== first)
    throw new InvalidTarget('resource and audience name different APIs: a token is issued for one audience');
  return first;
}

/** What the request must say before anything is looked up: every refusal here is invalid_request (or its scope). */
function parseRequest(params: Params) {
  if (!params.subject_token) throw new InvalidRequest('subject_token is required');
  if (!params.subject_token_type) throw new InvalidRequest('subject_token_type is required');
  if (params.subject_token_type !== ACCESS_TOKEN_TYPE)
    throw new InvalidRequest(
      `subject_token_type ${echoInput(params.subject_token_type)} is not supported: only ${ACCESS_TOKEN_TYPE}`,
    );
  if (params.requested_token_type !== undefined && params.requested_token_type !== ACCESS_TOKEN_TYPE)
    throw new InvalidRequest(
      `requested_token_type ${echoInput(params.requested_token_type)} is not supported: only ${ACCESS_TOKEN_TYPE}`,
    );
  // §2.1: delegation is named by the authenticated client itself, which the new token's act claim records.
  if (params.actor_token !== undefined || params.actor_token_type !== undefined)
    throw new InvalidRequest('actor_token is not supported: the authenticated client is the actor');
  const scopes = parseScope(params.scope || undefined);
  if (scopes === null) throw new InvalidScope('scope is malformed');
  return { subjectToken: params.subject_token, audience: targetOf(params), scopes };
}

export const tokenExchangeGrant: Grant<Parameter> = {
  grantType: TOKEN_EXCHANGE_GRANT,
  parameters: [
    'subject_token',
    'subject_token_type',
    'resource',
    'audience',
    'scope',
    'requested_token_type',
    'actor_token',
    'actor_token_type',
  ],
  async handle(deps, params, context, binding) {
    const request = parseRequest(params);
    const actor = await authenticateClient(deps, params, context);
    const attempt = { actorId: actor.id, via: 'token_endpoint' as const, ...context };
    const issued = await auditedExchange(deps.audit, attempt, request.audience, async () => {
      if (!isConfidential(actor.kind)) throw new UnauthorizedClient('Only confidential clients may exchange tokens');
      requireExchangeAllowed(actor);
      requireBindingIfRegistered(actor, binding);
      const subject = await deps.verifier.verify(request.subjectToken);
      if (!subject || !(await isAccessTokenLive(deps, accessTokenRef(subject))))
        throw new InvalidGrant('The subject token is invalid, expired or revoked');
      if (!holdsToken(actor, subject))
        throw new InvalidGrant('The subject token was neither issued to this client nor for an API it serves');
      if (subject.cnf && !binding)
        throw new InvalidDpopProof(
          'The subject token is DPoP-bound: send a DPoP proof, whose key the exchanged token is bound to',
        );
      const exchanged = await exchangeAccessToken(deps, {
        actor,
        subject,
        audience: request.audience,
        scopes: request.scopes,
        jkt: binding?.jkt ?? null,
      });
      return { issued: exchanged, subject };
    });
    return {
      access_token: issued.accessToken,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: issued.tokenType,
      expires_in: issued.expiresIn,
      scope: issued.scope,
    };
  },
};
