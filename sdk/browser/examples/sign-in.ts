import { handleCallback, login, userInfo } from '@gatehouse/browser';

const gatehouse = { issuer: 'https://id.example.com', clientId: 'cli_abc', redirectUri: `${location.origin}/callback` };

if (location.pathname === '/callback') {
  const tokens = await handleCallback(gatehouse); // checks state, iss, the ID token; throws a GatehouseError
  const me = await userInfo(gatehouse, tokens.accessToken);
  document.body.textContent = `Hello, ${me.name}`;
} else {
  await login(gatehouse); // to Gatehouse with PKCE S256, state and nonce
}
