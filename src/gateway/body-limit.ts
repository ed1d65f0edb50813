// gateway.body_limit_bytes for proxied bodies, which are streamed to the upstream and never buffered. A declared
// Content-Length over the limit is refused before anything is sent; a chunked body is counted as it passes and cut
// off at the limit (the upstream request then fails and the client gets 413 if no answer has started).
import type { IncomingHttpHeaders } from 'node:http';
import { type Readable, Transform } from 'node:stream';
import { GatehouseError } from '../http/errors.ts';

export class BodyTooLarge extends GatehouseError {
  constructor() {
    super('payload_too_large');
  }
}

export function limitedBody(body: Readable, headers: IncomingHttpHeaders, limit: number): Readable {
  const declared = headers['content-length'];
  // Node's parser delivers exactly Content-Length bytes, so a declared length is checked once.
  if (declared !== undefined) {
    if (Number(declared) > limit) throw new BodyTooLarge();
    return body;
  }
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) done(new BodyTooLarge());
      else done(null, chunk);
    },
  });
  body.on('error', (error) => counter.destroy(error));
  return body.pipe(counter);
}
