// Enqueuing a message: render the template, seal the body, insert it into the outbox, all on the caller's
// executor, so the account routes create a verification and its message in ONE transaction: either both
// exist or neither does, and the worker sends only what was committed.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config/schema.ts';
import { seal } from '../crypto/seal.ts';
import type { Executor } from '../db/pool.ts';
import { outboxSealKey } from './keys.ts';
import { acceptsLocalAddresses, checkRecipient } from './recipient.ts';
import { insertMessage } from './store.ts';
import { type MessageRequest, type RenderedMessage, renderMessage } from './templates.ts';

export type { MessageRequest } from './templates.ts';

export interface OutboxDeps {
  config: Config;
  /** secrets.delivery */
  deliveryKey: Buffer;
  clock: () => Date;
}

export interface Outbox {
  /** Queues a message; returns its id (safe to log). Throws InvalidRecipient for a bad address. */
  enqueue(tx: Executor, request: MessageRequest): Promise<string>;
  /** Renders and seals like enqueue, then drops the result: the same work for a request that must send nothing. */
  rehearse(request: MessageRequest): void;
}

/** Additional data for sealing: a body sealed for one message cannot be moved into another row. */
export const bodyPurpose = (messageId: string) => `outbox:${messageId}`;

export function createOutbox(deps: OutboxDeps): Outbox {
  const key = outboxSealKey(deps.deliveryKey);
  const rule = { localAddresses: acceptsLocalAddresses(deps.config.server.issuer) };
  const prepare = (request: MessageRequest) => {
    const to = checkRecipient(request.to, rule);
    const now = deps.clock();
    const rendered: RenderedMessage = renderMessage(request, {
      organizationName: deps.config.organization.name,
      issuer: deps.config.server.issuer,
      now,
    });
    const id = `msg_${randomBytes(16).toString('base64url')}`;
    const sealedBody = seal(key, JSON.stringify(rendered), bodyPurpose(id));
    return { now, message: { id, template: request.template, recipient: to, sealedBody } };
  };
  return {
    async enqueue(tx, request) {
      const { now, message } = prepare(request);
      await insertMessage(tx, message, now);
      return message.id;
    },
    rehearse(request) {
      prepare(request);
    },
  };
}
