// GitHub (and GitHub Enterprise Server by its base URL): OAuth 2 plus the REST API. The subject is the numeric user
// id (a login can be renamed and then taken by someone else); the email is the primary address GitHub marks verified
// (GET /user/emails), since /user shows only a public address, which need not be verified.
import { type OAuth2Options, oauth2Flow, optionalText, requiredId } from './oauth2.ts';
import type { ProviderFlow } from './provider.ts';

/** github.com's API lives on api.github.com; an Enterprise Server's under {base}/api/v3. */
export const githubApi = (base: string) =>
  new URL(base).hostname === 'github.com' ? 'https://api.github.com' : `${base.replace(/\/$/, '')}/api/v3`;

export function githubFlow(o: { base: string } & Omit<OAuth2Options, 'endpoints' | 'profile'>): ProviderFlow {
  const base = o.base.replace(/\/$/, '');
  const api = githubApi(base);
  return oauth2Flow({
    ...o,
    endpoints: {
      authorization: `${base}/login/oauth/authorize`,
      token: `${base}/login/oauth/access_token`,
      scope: 'read:user user:email',
    },
    async profile(get) {
      const user = (await get(`${api}/user`)) as Record<string, unknown>;
      const emails = (await get(`${api}/user/emails`)) as unknown;
      const primary = Array.isArray(emails)
        ? (emails as Record<string, unknown>[]).find((e) => e.primary === true && e.verified === true)
        : undefined;
      const email = optionalText(primary?.email);
      return {
        subject: requiredId(user.id, 'id'),
        email,
        emailVerified: email !== null,
        name: optionalText(user.name) ?? optionalText(user.login) ?? '',
        amr: [],
        acr: null,
      };
    },
  });
}
