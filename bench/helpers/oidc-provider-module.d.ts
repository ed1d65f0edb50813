// oidc-provider ships no type declarations; the benchmark uses only its constructor and callback().
declare module 'oidc-provider' {
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => void;
  }
}
