// oidc-client-ts (v3), a single-page app with a `browser` client (no secret).
import { UserManager } from 'oidc-client-ts';

export function gatehouseUserManager(issuer: string, clientId: string, appOrigin: string) {
  return new UserManager({
    authority: issuer,
    client_id: clientId,
    redirect_uri: `${appOrigin}/callback`, // registered exactly on the client
    scope: 'openid profile email',
    // Name and email come from userinfo: Gatehouse's ID token carries the sign-in, not the profile.
    loadUserInfo: true,
    // The code flow with PKCE S256 is the library's default.
  });
}
