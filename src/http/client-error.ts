// Requests Node's HTTP parser refuses before Fastify sees them: a malformed request line or header, a request line
// and headers over Node's 16 KB limit, a chunk extension over its limit, a request not received within the server's
// timeouts. Fastify's default answer is its own JSON without a request id; this one is the envelope, written on the
// socket (there is no request object), with the headers every response carries, and then the connection closes, as
// Node's own handler does: the parser cannot find where the next request would start.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type ErrorCode, errorCatalogue } from './error-catalogue.ts';
import { newRequestId } from './plugin.ts';
import { rawResponseHeaders } from './security-headers.ts';

const BY_NODE_CODE: Readonly<Record<string, ErrorCode>> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'payload_too_large',
};

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Content Too Large',
  431: 'Request Header Fields Too Large',
};

/** Node's parser codes (HPE_*, ERR_HTTP_*) and what each answers. */
export function clientErrorCode(nodeCode: string | undefined): ErrorCode {
  return nodeCode !== undefined && Object.hasOwn(BY_NODE_CODE, nodeCode)
    ? (BY_NODE_CODE[nodeCode] as ErrorCode)
    : 'invalid_request';
}

interface InFlight {
  /** Node's response on this socket, if one started: the parser failed in the middle of a body. */
  _httpMessage?: { headersSent?: boolean } | null;
}

export function clientErrorHandler(tls: boolean) {
  return function onClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    // A connection reset has nothing left to answer (Node's own handler and Fastify's skip it too).
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const code = clientErrorCode(error.code);
    const { status } = errorCatalogue[code];
    const requestId = newRequestId();
    // Never the error itself: its rawPacket holds the bytes received, cookies and tokens included.
    this.log.info(
      { reqId: requestId, status, node_code: error.code, ip: socket.remoteAddress },
      'request refused by the HTTP parser',
    );
    const answered = (socket as Socket & InFlight)._httpMessage?.headersSent === true;
    if (socket.writable && !answered) {
      const body = JSON.stringify({
        error: code,
        error_description:
          code === 'invalid_request' ? 'The request is not valid HTTP/1.1.' : errorCatalogue[code].description,
        request_id: requestId,
      });
      const headers = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        'x-request-id': requestId,
        ...rawResponseHeaders(tls),
        connection: 'close',
      };
      const head = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Request'}\r\n${head}\r\n${body}`);
    }
    socket.destroy(error);
  };
}
