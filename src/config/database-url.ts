// PostgreSQL connection URIs may name several servers, which libpq (pg_dump, psql) and postgres.js try in turn:
// postgres://gatehouse@db1:5432,db2:5432/gatehouse?target_session_attrs=read-write, the form docs/scaling.md
// recommends in front of a Patroni cluster. The WHATWG URL parser refuses the comma-separated host list, so the list
// is taken out first and every host is checked on its own; the rest of the URI is parsed as one URL.

export interface DatabaseUrl {
  /** The servers as written, `host` or `host:port`, in order. */
  hosts: string[];
  /** The URI with only its first host: user, password, database and query as a URL. */
  first: URL;
}

const SHAPE = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/s;

export function parseDatabaseUrl(url: string): DatabaseUrl | null {
  const match = SHAPE.exec(url);
  if (!match) return null;
  const [, scheme, userinfo, hostList = '', rest = ''] = match;
  const hosts = hostList.split(',');
  const credentials = userinfo === undefined ? '' : `${userinfo}@`;
  try {
    // Several servers: each must be a host of its own (an empty one would mean a local socket, which is not a list).
    if (hosts.length > 1 && hosts.some((host) => new URL(`${scheme}${host}`).hostname === '')) return null;
    return { hosts, first: new URL(`${scheme}${credentials}${hosts[0]}${rest}`) };
  } catch {
    return null;
  }
}

/** The URI with its password replaced, for logs and status output; everything else is kept as written. */
export function redactDatabaseUrl(url: string): string {
  if (!parseDatabaseUrl(url)) return '(unparseable URL)';
  const [, scheme, userinfo, hostList, rest] = SHAPE.exec(url) as RegExpExecArray;
  const colon = userinfo?.indexOf(':') ?? -1;
  if (userinfo === undefined || colon < 0) return url;
  return `${scheme}${userinfo.slice(0, colon)}:***@${hostList}${rest}`;
}
