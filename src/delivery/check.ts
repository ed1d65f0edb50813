// One line of `gatehouse doctor` (and of `gatehouse config delivery`'s check). A `fail` makes doctor exit 1.
export type CheckStatus = 'ok' | 'info' | 'warn' | 'fail';

export interface Check {
  status: CheckStatus;
  name: string;
  detail: string;
}

export const check = (status: CheckStatus, name: string, detail: string): Check => ({ status, name, detail });

export function formatCheck(c: Check): string {
  return `${c.status.padEnd(4)}  ${c.name.padEnd(10)} ${c.detail}`;
}
