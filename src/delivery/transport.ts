// What every delivery kind implements. A transport either resolves (the message was accepted by the next hop)
// or throws DeliveryFailure saying whether trying again can help.
export interface OutgoingMessage {
  /** Outbox id: Standard Webhooks' webhook-id and a stable Message-ID, so receivers can drop duplicates. */
  id: string;
  template: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Transport {
  readonly kind: 'smtp' | 'direct_mx' | 'webhook' | 'dev_mailbox';
  /**
   * Sends one message. When `signal` aborts (the worker's send cut-off) the transport stops the exchange, closing
   * its connection, and rejects: a send that was cut off must not complete later behind the worker's back.
   */
  send(message: OutgoingMessage, signal: AbortSignal): Promise<void>;
  close(): void;
}

export class DeliveryFailure extends Error {
  /** True when no retry can succeed (a 5xx SMTP reply to the message, a 3xx or 4xx webhook answer). */
  readonly permanent: boolean;
  /** True when the send was cut off: the next hop may have accepted the message all the same. */
  readonly cutOff: boolean;

  constructor(message: string, permanent: boolean, options?: { cause?: unknown; cutOff?: boolean }) {
    super(message, options);
    this.name = 'DeliveryFailure';
    this.permanent = permanent;
    this.cutOff = options?.cutOff ?? false;
  }
}

/** Reads a nodemailer/SMTP error: RFC 5321 §4.2.1, 5yz is a permanent negative reply, 4yz transient. */
export function smtpFailure(error: unknown): DeliveryFailure {
  const e = error as { code?: string; responseCode?: number; message?: string };
  const reply = typeof e.responseCode === 'number' ? e.responseCode : 0;
  // Only a refusal of this message's envelope or content says the message itself is undeliverable. A refused
  // login or STARTTLS is relay configuration, which the operator can fix: keep retrying.
  const aboutMessage = e.code === 'EENVELOPE' || e.code === 'EMESSAGE';
  const permanent = aboutMessage && reply >= 500 && reply < 600;
  const what = reply ? `SMTP ${reply}` : (e.code ?? 'error');
  return new DeliveryFailure(`${what}: ${firstLine(e.message ?? String(error))}`, permanent, { cause: error });
}

/** Server replies can be long; the first line says what happened and keeps the stored error bounded. */
export function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').slice(0, 300);
}
