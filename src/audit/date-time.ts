// The instants the audit API accepts (GET /admin/audit's since/until, GET /admin/stats's from/to).

// RFC 3339 date-time with an explicit offset: a timestamp without one would mean different instants to different people.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** The instant, or null when the text is not an RFC 3339 date-time with an offset on a day the calendar has. */
export function parseDateTime(value: string): Date | null {
  const match = DATE_TIME.exec(value);
  if (!match) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return null;
  // Date rolls 2026-02-30 over into March; refuse a day the month does not have.
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // PostgreSQL's timestamptz has no year 0 (4713 BC comes before 1 AD).
  if (year < 1) return null;
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= lastDay ? date : null;
}
