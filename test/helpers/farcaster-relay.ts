// A local stand-in for the Farcaster auth relay (the AuthKit channel protocol the real relay serves under /v1), and
// the Farcaster app's side of it: `signIn` does what the app does after scanning the QR code, building the
// Sign In With Farcaster message from the channel's parameters with @farcaster/auth-client, signing it with the
// custody key, and completing the channel through the library's authenticate call.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { after } from 'node:test';
import { createWalletClient } from '@farcaster/auth-client';
import type { PrivateKeyAccount } from 'viem/accounts';

interface Channel {
  params: Record<string, string>;
  url: string;
  completed: Record<string, unknown> | null;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

export async function startRelayStandIn() {
  const channels = new Map<string, Channel>();
  const server = createServer(async (request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
    const path = new URL(request.url ?? '/', 'http://relay').pathname;
    if (request.method === 'POST' && path === '/v1/channel') {
      const body = await readJson(request);
      const channelToken = randomBytes(16).toString('hex');
      const params = Object.fromEntries(
        Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      const url = `https://farcaster.xyz/~/siwf?${new URLSearchParams({ channelToken, ...params })}`;
      channels.set(channelToken, { params, url, completed: null });
      return send(201, { channelToken, url, nonce: params.nonce });
    }
    const channel = channels.get(token);
    if (!channel) return send(401, { error: 'Unauthorized' });
    if (request.method === 'GET' && path === '/v1/channel/status') {
      if (!channel.completed) return send(202, { state: 'pending', nonce: channel.params.nonce, url: channel.url });
      return send(200, { state: 'completed', nonce: channel.params.nonce, url: channel.url, ...channel.completed });
    }
    if (request.method === 'POST' && path === '/v1/channel/authenticate') {
      channel.completed = await readJson(request);
      return send(201, { state: 'completed', ...channel.completed });
    }
    send(404, { error: 'Not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, channels };
}

export interface AppSignIn {
  fid: number;
  custody: PrivateKeyAccount;
  /** Signs instead of the custody key, while the message still names the custody address (a forged signature). */
  signer?: PrivateKeyAccount;
  username?: string;
  displayName?: string;
  /** Changes the message's fields before signing (a foreign domain, another nonce...). */
  alter?: Partial<{ domain: string; nonce: string; uri: string; expirationTime: string }>;
}

/** The Farcaster app: reads the deep link, signs the message with the custody key, completes the channel. */
export async function appSignsIn(relayUrl: string, deepLink: string, input: AppSignIn): Promise<void> {
  const client = createWalletClient({
    relay: relayUrl,
    // The app needs no chain to sign; these are never called.
    ethereum: {
      getFid: () => Promise.reject(new Error('not used')),
      isValidAuthAddress: () => Promise.reject(new Error('not used')),
      publicClient: undefined as never,
    },
  });
  const link = new URL(deepLink);
  const parsed = client.parseSignInURI({ uri: deepLink });
  if (parsed.isError) throw new Error(`not a sign-in link: ${deepLink}`);
  const param = (name: string) => link.searchParams.get(name) ?? undefined;
  const built = client.buildSignInMessage({
    fid: input.fid,
    address: input.custody.address,
    domain: input.alter?.domain ?? param('domain'),
    uri: input.alter?.uri ?? param('siweUri'),
    nonce: input.alter?.nonce ?? param('nonce'),
    requestId: param('requestId'),
    expirationTime: (() => {
      const at = input.alter?.expirationTime ?? param('expirationTime');
      return at ? new Date(at) : undefined;
    })(),
  });
  if (built.isError) throw new Error(`message not built: ${built.error?.message}`);
  const signature = await (input.signer ?? input.custody).signMessage({ message: built.message });
  const done = await client.authenticate({
    channelToken: parsed.channelToken,
    authKey: 'app-key',
    message: built.message,
    signature,
    fid: input.fid,
    ...(input.username ? { username: input.username } : {}),
    ...(input.displayName ? { displayName: input.displayName } : {}),
  });
  if (done.isError || !done.response.ok) throw new Error('the relay refused the completion');
}
