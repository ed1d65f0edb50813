// @gatehouse/browser: sign in with Gatehouse from a browser app, as a public client (no secret).
export { handleCallback } from './callback.ts';
export type { ClientConfig, GatehouseConfig } from './config.ts';
export { type DeviceCode, type DeviceSignInOptions, signInWithDevice } from './device.ts';
export {
  AuthorizationError,
  DiscoveryError,
  Expired,
  GatehouseError,
  type GatehouseErrorCode,
  InvalidIdToken,
  IssuerMismatch,
  MissingTransaction,
  NonceMismatch,
  StateMismatch,
  TokenError,
  UserInfoError,
} from './errors.ts';
export type { IdTokenClaims } from './id-token.ts';
export { type LoginOptions, login } from './login.ts';
export { type LogoutOptions, logout } from './logout.ts';
export { refresh } from './refresh.ts';
export type { Tokens } from './token.ts';
export { type UserInfo, userInfo } from './userinfo.ts';
