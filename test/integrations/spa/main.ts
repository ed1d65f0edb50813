// The single-page app of the oidc-client-ts test, bundled for Chromium by spa-server.ts. Each path is one thing a person
// does, and <pre id="result"> shows what the app then holds: `/` signs in, `/callback` completes it, `/refresh`
// renews the tokens with signinSilent() and calls userinfo with the new access token, `/signout` signs out with
// signoutRedirect(), and `/signed-out` is where Gatehouse sends the browser back.
import type { User } from 'oidc-client-ts';
import { gatehouseUserManager } from '../snippets/oidc-client-ts.ts';

// The few browser globals used here (the project's types are Node's, without the DOM library).
declare const document: { getElementById(id: string): { textContent: string | null } | null };
declare const location: { origin: string; pathname: string };

const show = (value: unknown) => {
  const result = document.getElementById('result');
  if (result) result.textContent = JSON.stringify(value);
};

const tokens = (user: User | null) =>
  user && { access: user.access_token, refresh: user.refresh_token, id: user.id_token, profile: user.profile };

const config = JSON.parse(document.getElementById('config')?.textContent ?? '{}') as {
  issuer: string;
  clientId: string;
};
const manager = gatehouseUserManager(config.issuer, config.clientId, location.origin);

/** What an API call with the app's access token gets: Gatehouse's userinfo stands in for the app's API. */
async function callUserinfo(accessToken: string) {
  const response = await fetch(await manager.metadataService.getUserInfoEndpoint(), {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return { status: response.status, body: await response.json() };
}

try {
  if (location.pathname === '/callback') {
    const user = await manager.signinCallback();
    show({ profile: user?.profile, scope: user?.scope, signedIn: tokens(user ?? null) });
  } else if (location.pathname === '/refresh') {
    const before = await manager.getUser();
    const after = await manager.signinSilent();
    show({ before: tokens(before), after: tokens(after), userinfo: after && (await callUserinfo(after.access_token)) });
  } else if (location.pathname === '/signout') {
    await manager.signoutRedirect();
  } else if (location.pathname === '/signed-out') {
    await manager.signoutCallback();
    show({ signedOut: true, user: await manager.getUser() });
  } else {
    await manager.signinRedirect();
  }
} catch (error) {
  show({ error: String(error) });
}
