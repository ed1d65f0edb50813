// The console is English (hosted pages have catalogues: web/src/i18n). A count still takes the noun's right form
// ("1 client", "2 clients"), chosen by the language's plural rules rather than an "(s)".
const rules = new Intl.PluralRules('en');

/** "1 client", "3 clients": `forms` gives the noun for each plural category English uses. */
export const counted = (count: number, forms: { one: string; other: string }): string =>
  `${count} ${rules.select(count) === 'one' ? forms.one : forms.other}`;

export const RECORD = { one: 'record', other: 'records' };
export const CHAIN = { one: 'chain', other: 'chains' };
