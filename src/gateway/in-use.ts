// Whether the gateway's route policies are used at all: by the built-in proxy (gateway.enabled), the forward-auth
// endpoint (gateway.forward_auth), or both. What is checked at startup and by doctor follows from this.
import type { Config } from '../config/schema.ts';

export const gatewayInUse = (config: Config) => config.gateway.enabled || config.gateway.forward_auth;
