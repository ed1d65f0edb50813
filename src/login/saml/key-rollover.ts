// An identity provider that rolls its signing key over publishes the new certificate in its metadata and signs with
// the new key, often at once. Waiting for the next scheduled fetch (idp_metadata_refresh_seconds, an hour by default)
// would refuse every sign-in until then, so a response that does not verify makes the connection fetch its metadata
// URL once more, and the response is checked again if the signing certificates changed. At most once a minute per
// connection on this node (each node keeps its own count): a stream of forged responses costs the identity provider
// one fetch a minute per node, not one per response.
import type { SamlConnection } from './connection.ts';

export const ROLLOVER_FETCH_INTERVAL_MS = 60_000;

/** Fetches the connection's metadata now; true when it succeeded (the connection then holds the new copy). */
export type FetchMetadataNow = (connection: SamlConnection) => Promise<boolean>;

const sameKeys = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((pem, i) => pem === b[i]);

/** `now`: the app's clock in milliseconds (tests move it instead of waiting a minute). */
export function rolloverRefetch(fetchNow: FetchMetadataNow, now: () => number) {
  const lastTried = new Map<string, number>();
  /** Whether the connection's signing keys changed by a fetch made for a response that did not verify. */
  return async (connection: SamlConnection): Promise<boolean> => {
    if (connection.config.idp_metadata_url === '') return false;
    const last = lastTried.get(connection.id);
    if (last !== undefined && now() - last < ROLLOVER_FETCH_INTERVAL_MS) return false;
    lastTried.set(connection.id, now());
    const before = connection.idpCertificates;
    return (await fetchNow(connection)) && !sameKeys(before, connection.idpCertificates);
  };
}
