// The language of a request's answer (a hosted page, a mail it causes): the signed-in person's saved choice, else
// the browser's Accept-Language, else the organization's default (config branding.default_locale). Looked up once
// per request: the session lookup is the one sessions.current already caches, plus one indexed read of the choice.
import type { FastifyRequest } from 'fastify';
import type { Executor } from '../db/pool.ts';
import type { Sub } from '../identity/ids.ts';
import { findIdentityLocale } from '../identity/store.ts';
import type { SessionHttp } from '../session/http.ts';
import type { Locale } from './locales.ts';
import { negotiateLocale } from './negotiate.ts';
import type { LocaleOf } from './translate.ts';

export interface LocaleDeps {
  sql: Executor;
  sessions: Pick<SessionHttp, 'current' | 'carriesCookie'>;
  fallback: Locale;
}

export function createLocaleResolver(deps: LocaleDeps): LocaleOf {
  const cache = new WeakMap<FastifyRequest, Promise<Locale>>();
  const resolve = async (request: FastifyRequest): Promise<Locale> => {
    const session = deps.sessions.carriesCookie(request) ? await deps.sessions.current(request) : null;
    const saved = session ? await findIdentityLocale(deps.sql, session.identityId) : null;
    return negotiateLocale({ saved, acceptLanguage: request.headers['accept-language'], fallback: deps.fallback });
  };
  return (request) => {
    let pending = cache.get(request);
    if (!pending) {
      pending = resolve(request);
      cache.set(request, pending);
    }
    return pending;
  };
}

/**
 * The language of a message to someone: their saved choice, else `fallback` (the language of the request that caused
 * it, or the organization's default when that request says nothing about the recipient, as an invitation's does).
 */
export async function recipientLocale(sql: Executor, identityId: Sub | null, fallback: Locale): Promise<Locale> {
  const saved = identityId ? await findIdentityLocale(sql, identityId) : null;
  return negotiateLocale({ saved, acceptLanguage: undefined, fallback });
}
