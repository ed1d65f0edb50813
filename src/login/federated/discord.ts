// Discord: OAuth 2 plus GET /api/users/@me. The subject is the snowflake user id; the email counts as verified only
// when Discord says `verified: true` for the account.
import { type OAuth2Options, oauth2Flow, optionalText, requiredId } from './oauth2.ts';
import type { ProviderFlow } from './provider.ts';

export function discordFlow(o: { base: string } & Omit<OAuth2Options, 'endpoints' | 'profile'>): ProviderFlow {
  const base = o.base.replace(/\/$/, '');
  return oauth2Flow({
    ...o,
    endpoints: {
      authorization: `${base}/oauth2/authorize`,
      token: `${base}/api/oauth2/token`,
      scope: 'identify email',
    },
    async profile(get) {
      const user = (await get(`${base}/api/users/@me`)) as Record<string, unknown>;
      const email = optionalText(user.email);
      return {
        subject: requiredId(user.id, 'id'),
        email,
        emailVerified: email !== null && user.verified === true,
        name: optionalText(user.global_name) ?? optionalText(user.username) ?? '',
        amr: [],
        acr: null,
      };
    },
  });
}
