import { invalidFields } from '../http/validation-messages.ts';
import type { Position } from '../identity/directory-store.ts';

export const DEFAULT_LIMIT = 25;
const CURSOR_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CURSOR_ID = /^[A-Za-z0-9_-]{1,100}$/;

export interface PageQuery {
  limit?: string;
  cursor?: string;
}

export interface PageRequest {
  limit: number;
  after: Position | null;
}

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify([position.createdAt.toISOString(), position.id])).toString('base64url');
}

function decodeCursor(cursor: string): Position {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const createdAt = new Date(String(at));
    // Only what encodeCursor writes: a four-digit-year ISO instant (PostgreSQL's range) and an id of our alphabet.
    if (typeof at === 'string' && typeof id === 'string' && CURSOR_ID.test(id) && CURSOR_AT.test(at))
      if (!Number.isNaN(createdAt.getTime()) && createdAt.toISOString() === at) return { createdAt, id };
  } catch {
    // falls through to the refusal below
  }
  const problem = { path: 'querystring.cursor', problem: 'is not a cursor this API returned' };
  throw invalidFields([problem]);
}

export function pageRequest(query: PageQuery): PageRequest {
  return {
    limit: query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit),
    after: query.cursor === undefined ? null : decodeCursor(query.cursor),
  };
}

/** The position of a row paged in creation order (applications, clients, resources). */
export const byCreation = (row: { createdAt: Date; id: string }): Position => ({
  createdAt: row.createdAt,
  id: row.id,
});

/** Rows were fetched with limit + 1: the extra one only says whether another page exists. */
export function pageOf<T>(rows: T[], limit: number, position: (row: T) => Position) {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(position(last)) : null };
}
