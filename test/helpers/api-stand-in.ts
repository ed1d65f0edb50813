// A local stand-in for a provider's OAuth 2 token endpoint and user API (GitHub, Discord): each path answers what
// the test's handler returns, and every request is recorded so tests can assert what was sent.
import { createServer } from 'node:http';
import { after } from 'node:test';

export interface Recorded {
  method: string;
  path: string;
  authorization: string | null;
  body: URLSearchParams;
}

export type Handler = (request: Recorded) => [number, unknown];

export async function startApiStandIn(routes: Record<string, Handler>) {
  const requests: Recorded[] = [];
  const server = createServer(async (request, response) => {
    let text = '';
    for await (const chunk of request) text += chunk;
    const recorded: Recorded = {
      method: request.method ?? 'GET',
      path: new URL(request.url ?? '/', 'http://stand-in').pathname,
      authorization: request.headers.authorization ?? null,
      body: new URLSearchParams(text),
    };
    requests.push(recorded);
    const [status, value] = routes[recorded.path]?.(recorded) ?? [404, { message: 'Not Found' }];
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  after(() => new Promise((resolve) => server.close(resolve)));
  return { base: `http://127.0.0.1:${port}`, requests };
}
