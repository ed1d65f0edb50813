// The single-page app of the oidc-client-ts test, bundled for Chromium by spa-server.ts: `/` starts the sign-in,
// `/callback` completes it and shows what the app learned in <pre id="result">.
import { gatehouseUserManager } from '../snippets/oidc-client-ts.ts';

// The few browser globals used here (the project's types are Node's, without the DOM library).
declare const document: { getElementById(id: string): { textContent: string | null } | null };
declare const location: { origin: string; pathname: string };

const show = (value: unknown) => {
  const result = document.getElementById('result');
  if (result) result.textContent = JSON.stringify(value);
};

const config = JSON.parse(document.getElementById('config')?.textContent ?? '{}') as {
  issuer: string;
  clientId: string;
};
const manager = gatehouseUserManager(config.issuer, config.clientId, location.origin);
try {
  if (location.pathname === '/callback') {
    const user = await manager.signinCallback();
    show({ profile: user?.profile, scope: user?.scope, accessToken: user?.access_token });
  } else {
    await manager.signinRedirect();
  }
} catch (error) {
  show({ error: String(error) });
}
