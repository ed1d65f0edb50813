// Names and addresses of seeded identities, shared by the seed tool and the data-at-scale bench (which searches for
// seeded people by them). Person `i` has the same name in every seed of any size: a hash of `i` picks it.
//
// The names are synthetic but spread like real ones, because what a name search costs follows how common the words
// searched for, and their trigrams, are. Surnames: 10 000, drawn so the most common is 0.8 % of people (the most
// common US surname is under 1 %) with a long tail; first names: 2 000, the most common 0.6 %. Each is one or two
// made-up syllables and an ending ("Castini", "Chauntreewick"): 5 000 distinct trigrams over a million names, the
// rarest trigram of a full name typically in under a thousand of them. The first seed had ten first names and ten
// surnames, so every name (and every trigram of it) was in a tenth of the directory, and every display name ended
// in a sequence number, which no real name has.

const words = (text: string) => text.split(' ');
const ONSETS = words(
  'b bl br c ch cl cr d dr f fl fr g gl gr h j k kn l m n p pl pr qu r s sc sh sl sm sp st t th tr v w z',
);
const VOWELS = words('a e i o u y ai au ea ee ie oa oo ou');
// Four of twenty syllables end in their vowel.
const CODAS = ['', '', '', '', ...words('ck d l ll m n nd ng r rd rn s st t th x')];
const SURNAME_ENDS = words(
  'son ton ley man er well field wood berg by ford ridge sen ez ini ova ski stein ard ing ham wick more ow ic ello as en is ke',
);
const FIRST_ENDS = words('a o ie ah el in on y ene ia ette us an ra da ith');
const SURNAMES = 10000;
const FIRST_NAMES = 2000;

const capital = (word: string) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
const pick = <T>(list: readonly T[], n: number) => list[n % list.length] as T;

/** A well-mixed 32-bit hash of `n` and a salt (the mix of splitmix32), as a fraction in [0, 1). */
function unit(n: number, salt: number): number {
  let x = Math.imul(n, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return ((x ^ (x >>> 15)) >>> 0) / 2 ** 32;
}

/**
 * A rank in [0, count) where low ranks are common: rank < r has probability (r / count)^(1 / skew), so rank 0 is
 * (1 / count)^(1 / skew) of draws.
 */
const rank = (u: number, count: number, skew: number) => Math.floor(count * u ** skew);

const SYLLABLE = [ONSETS, VOWELS, CODAS] as const;
const SYLLABLES = SYLLABLE.reduce((n, list) => n * list.length, 1);

/** Spelling of a rank: one or two syllables and an ending, a rank's neighbours spelled nothing alike. */
function spell(r: number, ends: readonly string[]): string {
  let rest = Math.floor(unit(r, 3) * SYLLABLES * SYLLABLES * ends.length * 2);
  const take = (list: readonly string[]) => {
    const part = pick(list, rest);
    rest = Math.floor(rest / list.length);
    return part;
  };
  const syllable = () => SYLLABLE.map(take).join('');
  const first = syllable();
  const second = syllable();
  const end = take(ends);
  return capital(take(['one', 'two']) === 'one' ? `${first}${end}` : `${first}${second}${end}`);
}

export const firstNameOf = (i: number) => spell(rank(unit(i, 1), FIRST_NAMES, 1.5), FIRST_ENDS);
export const surnameOf = (i: number) => spell(rank(unit(i, 2), SURNAMES, 1.9), SURNAME_ENDS);
/** "Murnquutette Castini": first name and surname, no number (people's names have none). */
export const nameOf = (i: number) => `${firstNameOf(i)} ${surnameOf(i)}`;
/** murnquutette.castini.1@seed.example: unique by the sequence number. */
export const emailOf = (i: number) => `${firstNameOf(i)}.${surnameOf(i)}.${i}@seed.example`.toLowerCase();
