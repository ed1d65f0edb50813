// What Node's HTTP server answers itself, before Fastify sees a request: Fastify's default answer to a parser error
// is its own JSON without a request id, and Node's answer to an unknown Expect is an empty 417. Both become the
// envelope here, with a fresh request id that the log line carries too, and the headers every response carries.
// (Node's other answer of its own, 400 to an HTTP/1.1 request without Host, is turned off in app.ts and made in
// plugin.ts's onRequest hook, so it is an ordinary envelope.)
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type ErrorCode, errorCatalogue } from './error-catalogue.ts';
import { newRequestId } from './plugin.ts';
import { rawResponseHeaders } from './security-headers.ts';

// A malformed request line or header, a request line and headers over Node's 16 KB limit, a chunk extension over
// its limit, a request not received within the server's timeouts.
const BY_NODE_CODE: Readonly<Record<string, ErrorCode>> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'payload_too_large',
};

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Content Too Large',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
};

/** What a Node parser code (HPE_*, ERR_HTTP_*) answers. */
export function clientErrorCode(nodeCode: string | undefined): ErrorCode {
  return nodeCode !== undefined && Object.hasOwn(BY_NODE_CODE, nodeCode)
    ? (BY_NODE_CODE[nodeCode] as ErrorCode)
    : 'invalid_request';
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function rawEnvelope(code: ErrorCode, description: string, requestId: string, tls: boolean): RawAnswer {
  const body = JSON.stringify({ error: code, error_description: description, request_id: requestId });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    ...rawResponseHeaders(tls),
    connection: 'close',
  };
  return { status: errorCatalogue[code].status, headers, body };
}

interface InFlight {
  /** Node's response on this socket, if one started: the parser failed in the middle of a body. */
  _httpMessage?: { headersSent?: boolean } | null;
}

/**
 * Fastify's `clientErrorHandler`. Writes the envelope on the socket (there is no request object) and closes the
 * connection, as Node's own handler does: the parser cannot tell where a next request would start.
 */
export function clientErrorHandler(tls: boolean) {
  return function onClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
    // A connection reset has nothing left to answer (Node's own handler and Fastify's skip it too).
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const code = clientErrorCode(error.code);
    const requestId = newRequestId();
    // Never the error itself: its rawPacket holds the bytes received, cookies and tokens included.
    this.log.info(
      { reqId: requestId, status: errorCatalogue[code].status, node_code: error.code, ip: socket.remoteAddress },
      'request refused by the HTTP parser',
    );
    const answered = (socket as Socket & InFlight)._httpMessage?.headersSent === true;
    if (socket.writable && !answered) {
      const description =
        code === 'invalid_request' ? 'The request is not valid HTTP/1.1.' : errorCatalogue[code].description;
      const answer = rawEnvelope(code, description, requestId, tls);
      const head = Object.entries(answer.headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`HTTP/1.1 ${answer.status} ${REASONS[answer.status]}\r\n${head}\r\n${answer.body}`);
    }
    socket.destroy(error);
  };
}

/**
 * Node's `checkExpectation`: an Expect other than 100-continue, which Node would answer with an empty 417 (RFC 9110
 * §10.1.1 allows either that or ignoring it; a client asking for something we do not do is better told).
 */
export function expectationFailedHandler(tls: boolean, log: FastifyBaseLogger) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const requestId = newRequestId();
    log.info(
      { reqId: requestId, status: 417, method: request.method, ip: request.socket.remoteAddress },
      'request refused: unknown Expect',
    );
    const answer = rawEnvelope('expectation_failed', errorCatalogue.expectation_failed.description, requestId, tls);
    response.writeHead(answer.status, REASONS[answer.status], answer.headers).end(answer.body);
  };
}
