// The characters a name shown to people may not hold (src/http/display-text.ts), for the rule's unit test and the
// routes that take a name.

/** By code point: bidi controls, other format characters, controls. */
export const HIDDEN_CHARACTERS = [
  // Bidirectional controls (UAX #9): marks, embeddings, overrides, isolates.
  0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
  // Other format characters (Cf): zero-width space/joiners, word joiner, invisible operators, BOM, soft hyphen,
  // Mongolian vowel separator, interlinear annotation, a tag character.
  0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x00ad, 0x180e, 0xfff9, 0xe0041,
  // Controls (Cc), line and paragraph separators, a lone surrogate.
  0x0000, 0x0009, 0x000a, 0x000d, 0x001b, 0x007f, 0x0085, 0x009b, 0x2028, 0x2029, 0xd800,
];

export const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** The field problem the rule reports for `code`. */
export const hiddenProblem = (code: number) =>
  `remove the invisible character ${hex(code)}; control, formatting and text-direction characters are not allowed`;
