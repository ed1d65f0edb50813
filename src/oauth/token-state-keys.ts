// The token state cache's keys: migration 0009's NOTIFY payloads, so a notification names exactly one entry.
export const grantKey = (grantId: string) => `grant:${grantId}`;
export const clientKey = (clientId: string) => `client:${clientId}`;
export const jtiKey = (jti: string) => `jti:${jti}`;
export const identityKey = (sub: string) => `identity:${sub}`;
