// oidc-client-ts (v3), a single-page app with a `browser` client (no secret).
import { UserManager } from 'oidc-client-ts';

export function gatehouseUserManager(issuer: string, clientId: string, appOrigin: string) {
  return new UserManager({
    authority: issuer,
    client_id: clientId,
    redirect_uri: `${appOrigin}/callback`, // registered exactly on the client
    // offline_access: a refresh token, which signinSilent() uses (no hidden iframe, no third-party cookie).
    scope: 'openid profile email offline_access',
    // Name and email come from userinfo: Gatehouse's ID token carries the sign-in, not the profile.
    loadUserInfo: true,
    // The code flow with PKCE S256 is the library's default.
    // signoutRedirect() ends the Gatehouse session too and comes back here (a registered post-logout redirect URI),
    // after revoking the tokens: Gatehouse's sign-out alone leaves the app's grant, and its refresh token, standing.
    post_logout_redirect_uri: `${appOrigin}/signed-out`,
    revokeTokensOnSignout: true,
  });
}
