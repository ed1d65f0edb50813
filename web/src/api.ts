// Talks to Gatehouse's JSON API. Every failure becomes an ApiError carrying the envelope's code, message and request
// id, so each page can show what went wrong and the id an operator needs to find it in the logs.

import { t } from './i18n/i18n.ts';

export interface FieldProblem {
  /** Where in the request, e.g. `body.redirect_uris.0`. */
  path: string;
  problem: string;
}

export interface Envelope {
  error: string;
  error_description: string;
  request_id: string;
  fields?: FieldProblem[];
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string;
  readonly retryAfter: number | null;
  /** Per-field validation problems, so a form can show each beside its input. */
  readonly fields: FieldProblem[];

  constructor(status: number, envelope: Envelope, retryAfter: number | null) {
    super(envelope.error_description);
    this.status = status;
    this.code = envelope.error;
    this.requestId = envelope.request_id;
    this.retryAfter = retryAfter;
    this.fields = envelope.fields ?? [];
  }
}

function isEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null && typeof (value as Envelope).error === 'string';
}

export async function api<T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers:
        body === undefined && method === 'GET'
          ? { accept: 'application/json' }
          : { 'content-type': 'application/json', accept: 'application/json' },
      body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
    });
  } catch {
    throw new ApiError(
      0,
      {
        error: 'network_error',
        error_description: t('error.network'),
        request_id: '',
      },
      null,
    );
  }
  const text = await response.text();
  const data: unknown = text === '' ? null : JSON.parse(text);
  if (!response.ok) {
    const retry = response.headers.get('retry-after');
    const envelope = isEnvelope(data)
      ? data
      : {
          error: 'unexpected_response',
          error_description: t('error.unexpected', { status: response.status }),
          request_id: response.headers.get('x-request-id') ?? '',
        };
    throw new ApiError(response.status, envelope, retry ? Number(retry) : null);
  }
  return data as T;
}

// The server's rule, not a copy of it: a browser strips tabs and newlines and reads a backslash as "/", so the weaker check
// that stood here let "/\t/evil.example" leave the origin after sign-in.
export { safeReturnTo } from '../../src/http/return-to.ts';
