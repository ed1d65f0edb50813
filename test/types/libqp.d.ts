declare module 'libqp' {
  /** Decodes a quoted-printable string (RFC 2045 §6.7). */
  export function decode(input: string): Buffer;
}
