// express-openid-connect: a server-side Express app with a `web` client.
import type { BackchannelLogoutOptions, ConfigParams } from 'express-openid-connect';

export interface GatehouseApp {
  issuer: string;
  baseURL: string;
  clientID: string;
  clientSecret: string;
  /** Encrypts the app's own session cookie: a long random value of the app's. */
  sessionSecret: string;
}

export function gatehouseAuth(app: GatehouseApp): ConfigParams {
  return {
    issuerBaseURL: app.issuer,
    baseURL: app.baseURL,
    clientID: app.clientID,
    clientSecret: app.clientSecret,
    secret: app.sessionSecret,
    // The library defaults to client_secret_basic; Gatehouse refuses HTTP Basic.
    clientAuthMethod: 'client_secret_post',
    // The default is the implicit id_token flow, which Gatehouse does not offer: use the code flow (with PKCE).
    // offline_access: a refresh token, for req.oidc.accessToken.refresh().
    authorizationParams: { response_type: 'code', scope: 'openid profile email offline_access' },
    // GET /logout also ends the Gatehouse session (RP-initiated logout), then returns to baseURL.
    idpLogout: true,
  };
}

/**
 * Back-channel logout at {baseURL}/backchannel-logout: `store` (any express-session store the app's instances share,
 * such as connect-redis) remembers the sessions Gatehouse ended until their cookies come back.
 */
export function withBackchannelLogout(config: ConfigParams, store: BackchannelLogoutOptions['store']): ConfigParams {
  return { ...config, backchannelLogout: { store } };
}
