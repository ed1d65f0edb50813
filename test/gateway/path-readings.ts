// The fuzz tests' side of "the gateway forwards exactly the path it judged": random request targets built from the
// pieces path tricks are made of, and the ways real servers read a path they receive (decoding once or twice,
// `\` as `/`, `;params` dropped, trailing dots and spaces trimmed, Unicode compatibility folding), each followed by
// the RFC 3986 §5.2.4 dot-segment step most routers take. A forwarded path is safe when every one of these readings
// is the path the policy judged.
import { resolveSegments } from '../../src/gateway/request-path.ts';

/** mulberry32: a small seeded generator, so a failing case can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const PLAIN = [
  'api',
  'admin',
  'ADMIN',
  'Admin',
  'items',
  'public',
  'p',
  'x',
  '',
  '.',
  '..',
  'x.y',
  '~x',
  '%2D',
  'a%20b',
];
const TRICKY = [
  '...',
  'admin.',
  'admin..',
  'admin;x=1',
  'admin%3B',
  '%2e',
  '%2E%2E',
  '..%2f',
  '%2F',
  '%5C',
  '%252F',
  '%252e%252e',
  'adm%69n',
  '%61dmin',
  '%41DMIN',
  '%C0%AE',
  '%C0%AF',
  '%00',
  '%0a',
  'admin%20',
  '%20admin',
  'adm%C4%B1n',
  '%EF%BC%8E%EF%BC%8E',
  'ad%E2%80%8Bmin',
  '\\',
  'admin\\',
  'caf%C3%A9',
  '%7E',
  'a%2Fb',
  'admin%23',
  'admin%3F',
  '..admin',
  '%ff',
  '%',
  '%4',
  '@',
  ':',
  "!$&'()*+,=",
  '#',
  'x#y',
  '|',
  '{',
  '%ED%A0%80',
  '%e2%84%aa',
];

/** A target under /app: a few pieces, one in three a trick, often below /app/p/api where the policies are. */
export function randomTarget(random: () => number): string {
  const from = (list: string[]) => list[Math.floor(random() * list.length)] as string;
  const pick = () => from(random() < 0.3 ? TRICKY : PLAIN);
  const pieces = Array.from({ length: 1 + Math.floor(random() * 4) }, pick);
  const base = random() < 0.7 ? '/app/p/api/' : '/app/';
  return `${base}${pieces.join('/')}${random() < 0.2 ? '?q=1' : ''}`;
}

const decodeOnce = (path: string): string | null => {
  try {
    return decodeURIComponent(path);
  } catch {
    return null;
  }
};

const TRANSFORMS: ((path: string) => string)[] = [
  (p) => p,
  (p) => p.replaceAll('\\', '/'),
  (p) =>
    p
      .split('/')
      .map((s) => s.split(';')[0])
      .join('/'),
  (p) =>
    p
      .split('/')
      .map((s) => s.replace(/[\s.]+$/u, ''))
      .join('/'),
  (p) => p.normalize('NFKC'),
];

/** Every decoded path an upstream may route `forwarded` to (each a server's reading; null readings skipped). */
export function upstreamReadings(forwarded: string): Set<string> {
  const readings = new Set<string>();
  const once = decodeOnce(forwarded);
  const twice = once === null ? null : decodeOnce(once);
  for (const decoded of [once, twice]) {
    if (decoded === null) continue;
    for (const transform of TRANSFORMS) readings.add(resolveSegments(transform(decoded)));
    readings.add(resolveSegments(decodeOnce(TRANSFORMS.reduce((p, t) => t(p), forwarded)) ?? decoded));
  }
  return readings;
}
