// A request to a listening test app over a real socket, answered in the shape inject() gives. The gateway's data
// path and the forward-auth endpoint are a node:http handler ahead of Fastify (src/gateway/front.ts), which inject()
// never reaches: it calls Fastify's router directly. Gateway tests therefore send their requests this way.
import http from 'node:http';
import type { LightMyRequestResponse } from 'fastify';

export interface SocketRequest {
  method?: string;
  url: string;
  headers?: Record<string, string | undefined>;
  payload?: string | Buffer;
}

export function send(node: { url: string }, request: SocketRequest): Promise<LightMyRequestResponse> {
  if (node.url === '') throw new Error('the app does not listen: start it with listen = true');
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      `${node.url}${request.url}`,
      {
        method: request.method ?? 'GET',
        headers: Object.fromEntries(Object.entries(request.headers ?? {}).filter(([, v]) => v !== undefined)),
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({
            statusCode: response.statusCode,
            statusMessage: response.statusMessage,
            headers: response.headers,
            body,
            payload: body,
            rawPayload: Buffer.concat(chunks),
            json: () => JSON.parse(body),
          } as unknown as LightMyRequestResponse);
        });
      },
    );
    // A refusal before the body is sent (413 on a declared length) may close the connection mid-upload.
    outgoing.on('error', reject);
    outgoing.end(request.payload);
  });
}
