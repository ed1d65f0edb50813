// The token state cache's keys: migrations 0009's and 0030's NOTIFY payloads, so a notification names exactly one
// entry.
export const grantKey = (grantId: string) => `grant:${grantId}`;
export const clientKey = (clientId: string) => `client:${clientId}`;
export const jtiKey = (jti: string) => `jti:${jti}`;
export const identityKey = (sub: string) => `identity:${sub}`;
/** Migration 0030's: what the gateway's route policies read about a person (src/gateway/member-facts.ts). */
export const memberKey = (sub: string) => `member:${sub}`;
