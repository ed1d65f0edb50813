// HTTP/1.1 written byte for byte on a TCP socket: fetch, inject() and http.request all parse or refuse what an
// attacker would send (a `#`, a backslash, two Host headers, Content-Length with Transfer-Encoding), so requests that
// must reach the gateway exactly as written go this way. One request per connection (Connection: close unless
// the head names its own Connection, as a WebSocket handshake does; the gateway closes after refusing one).
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** RFC 9112 §7.1: chunk-size line, chunk, CRLF ... until a zero-size chunk. */
function unchunk(body: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (!(size > 0)) return out;
    out += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

function parse(response: string): RawAnswer {
  const headEnd = response.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = response.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = response.slice(headEnd + 4);
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: headers['transfer-encoding'] === 'chunked' ? unchunk(body) : body,
  };
}

/** Sends `head` (request line and header lines, without the blank line) and `body`; resolves with the answer. */
export function rawRequest(port: number, head: string[], body = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(parse(Buffer.concat(chunks).toString('utf8'))));
    socket.on('error', reject);
    const lines = head.some((line) => /^connection:/i.test(line)) ? head : [...head, 'Connection: close'];
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`, 'latin1');
  });
}

/** GET `target` as written, with one Host and the given extra header lines. */
export const rawGet = (port: number, target: string, ...headerLines: string[]) =>
  rawRequest(port, [`GET ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...headerLines]);
