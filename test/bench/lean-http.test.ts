// The benchmark's lean HTTP client (bench/helpers/lean-http.ts): a wrong parse would count failed rotations as
// successes or stall a chain, so its framing is checked against raw servers that split responses anywhere.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import { LeanConnection } from '../../bench/helpers/lean-http.ts';

/** A TCP server that answers each request (ended by its body of `content-length` bytes) with `answer(n)`. */
async function rawServer(
  answer: (requestNumber: number, socket: Socket) => void,
): Promise<{ origin: string; server: Server }> {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    let received = '';
    let answered = 0;
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      for (;;) {
        const headerEnd = received.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        const length = Number(/content-length: (\d+)/.exec(received.slice(0, headerEnd))?.[1] ?? 0);
        if (received.length < headerEnd + 4 + length) return;
        received = received.slice(headerEnd + 4 + length);
        answered += 1;
        answer(answered, socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const response = (status: string, body: string, extra = '') =>
  Buffer.from(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );

/** Writes `bytes` in random pieces, each in its own TCP write. */
async function writeInPieces(socket: Socket, bytes: Buffer) {
  let offset = 0;
  while (offset < bytes.length) {
    const end = Math.min(bytes.length, offset + randomInt(1, 40));
    await new Promise<void>((resolve) => socket.write(bytes.subarray(offset, end), () => resolve()));
    offset = end;
  }
}

describe('bench lean HTTP client', async () => {
  const servers: Server[] = [];
  after(() => {
    for (const server of servers) server.close();
  });
  const start = async (answer: (n: number, socket: Socket) => void) => {
    const { origin, server } = await rawServer(answer);
    servers.push(server);
    return LeanConnection.open(origin);
  };

  test('reads consecutive keep-alive responses split at random points, UTF-8 bodies intact', async () => {
    const body = (n: number) => JSON.stringify({ n, text: `naïve café ${'x'.repeat(n * 7)}` });
    const connection = await start((n, socket) => void writeInPieces(socket, response('200 OK', body(n))));
    for (let n = 1; n <= 60; n += 1) {
      const answer = await connection.postForm('/oauth/token', `a=${n}`);
      assert.equal(answer.status, 200);
      assert.equal(answer.body, body(n));
    }
    connection.close();
  });

  test('keeps the status of an error response and the connection usable after it', async () => {
    const connection = await start((n, socket) =>
      socket.write(n === 1 ? response('400 Bad Request', '{"error":"invalid_grant"}') : response('200 OK', '{}')),
    );
    assert.deepEqual(await connection.postForm('/oauth/token', 'x=1'), {
      status: 400,
      body: '{"error":"invalid_grant"}',
    });
    assert.deepEqual(await connection.postForm('/oauth/token', 'x=2'), { status: 200, body: '{}' });
    connection.close();
  });

  test('refuses a response without Content-Length framing instead of guessing its end', async () => {
    const connection = await start((_n, socket) =>
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n'),
    );
    await assert.rejects(connection.postForm('/oauth/token', 'x=1'), /unexpected response framing: HTTP\/1.1 200 OK/);
    await assert.rejects(connection.postForm('/oauth/token', 'x=2'), /unexpected response framing/);
  });

  test('a connection the server closes fails its request and every later one', async () => {
    const connection = await start((_n, socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{"a"');
      socket.end();
    });
    await assert.rejects(connection.postForm('/oauth/token', 'x=1'), /the server closed the connection/);
    await assert.rejects(connection.postForm('/oauth/token', 'x=2'), /the server closed the connection/);
  });

  test('refuses bytes after an answer instead of handing them to the next request', async () => {
    const connection = await start((_n, socket) =>
      socket.write(Buffer.concat([response('200 OK', '{"first":1}'), response('200 OK', '{"second":2}')])),
    );
    await assert.rejects(connection.postForm('/oauth/token', 'x=1'), /bytes after the answer/);
    await assert.rejects(connection.postForm('/oauth/token', 'x=2'), /bytes after the answer/);
  });

  test('a server that never answers fails the request after the answer timeout', async () => {
    const { origin, server } = await rawServer(() => {});
    servers.push(server);
    const connection = await LeanConnection.open(origin, 50);
    await assert.rejects(connection.postForm('/oauth/token', 'x=1'), /no answer within 50 ms/);
  });

  test('one request at a time per connection', async () => {
    const connection = await start((_n, socket) => socket.write(response('200 OK', '{}')));
    const first = connection.postForm('/oauth/token', 'x=1');
    await assert.rejects(connection.postForm('/oauth/token', 'x=2'), /one request at a time/);
    assert.equal((await first).status, 200);
    connection.close();
  });
});
