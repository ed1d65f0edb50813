// Authentication first (docs/api.md "Order of checks"): on every operation behind the session cookie alone, a request
// that can carry a body and carries no session cookie of ours is answered 401 login_required as soon as its media
// type passed (http/body-media-type.ts), before the CSRF rule and before validation. Without the cookie there is no
// session a forged request could ride, so a script is told to sign in rather than that it looks cross-site, and a
// caller who is not signed in learns nothing about the body schemas. GET and HEAD keep their own answers (a signed-out
// navigation is sent to sign in).
import type { preValidationHookHandler, RouteOptions } from 'fastify';
import { BODY_READING_METHODS } from '../http/body-media-type.ts';
import { GatehouseError } from '../http/errors.ts';
import { SESSION } from '../http/route-schema.ts';
import type { SessionHttp } from './http.ts';

/** An onRoute hook that puts the check in front of each such route's own preValidation hooks. */
export function requireSessionCookieFirst(sessions: SessionHttp): (route: RouteOptions) => void {
  const check: preValidationHookHandler = (request, _reply, done) => {
    if (BODY_READING_METHODS.has(request.method) && !sessions.carriesCookie(request))
      done(new GatehouseError('login_required'));
    else done();
  };
  return (route) => {
    if (route.schema?.security !== SESSION) return;
    route.preValidation = [check, ...[route.preValidation ?? []].flat()];
  };
}
