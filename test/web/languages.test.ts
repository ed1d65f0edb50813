// Hosted pages and mails in the person's language, in Chromium at 1280 and 390 px: a German and a Japanese sign-up
// and sign-in end to end (the confirmation mail read from a real SMTP server), Accept-Language negotiation with
// q-values, the organization's default when nothing matches, a saved choice that outranks the browser (pages and
// mails), and Arabic laid out right to left. Every page is saved at both widths under test-artifacts/languages-*.png.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { totpCode } from '../helpers/accounts.ts';
import { newPage, type TestPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { deliveryWorker, Inbox, startMailbox } from '../helpers/mailbox.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
// Spanish as the organization's default, so "nothing matched" is told apart from English.
const t = await startBrowserApp({ ...config, branding: { ...config.branding, default_locale: 'es' } });
const inbox = new Inbox(smtp, deliveryWorker(t.sql, t.config, t.secrets.delivery, t.clock.now, t.logs));

const WIDTHS = [1280, 390] as const;

/** The page at both widths: nothing wider than the window (no sideways scrolling), and a screenshot of each. */
async function atBothWidths(tp: TestPage, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await tp.page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    const overflow = await tp.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} at ${width} px is ${overflow} px wider than the window`);
    await tp.screenshot(`languages-${name}-${width}`);
  }
}

const language = async (page: Page) => ({
  lang: await page.locator('html').getAttribute('lang'),
  dir: await page.locator('html').getAttribute('dir'),
});

interface Words {
  locale: string;
  name: string;
  email: string;
  password: string;
  signUp: { title: string; name: string; email: string; password: string; submit: string; sent: string };
  mail: { subject: string; expires: string };
  confirm: { title: string; password: string; submit: string; done: string; next: string };
  signIn: { title: string; email: string; next: string; password: string; submit: string };
  enroll: { title: string; code: string; submit: string; codesTitle: string; saved: string };
  account: { title: string; languageLabel: string };
}

const GERMAN: Words = {
  locale: 'de-DE',
  name: 'Lise Meitner',
  email: 'lise@acme-robotics.dev',
  password: 'kernspaltung im winter 1938 am see',
  signUp: {
    title: 'Konto erstellen',
    name: 'Ihr Name',
    email: 'E-Mail-Adresse',
    password: 'Passwort',
    submit: 'Konto erstellen',
    sent: 'Wir haben einen Bestätigungslink an lise@acme-robotics.dev geschickt.',
  },
  mail: { subject: 'Bestätigen Sie Ihre E-Mail-Adresse für Acme Robotics', expires: 'Gültig für 24 Stunden.' },
  confirm: {
    title: 'E-Mail-Adresse bestätigen',
    password: 'Ihr Passwort',
    submit: 'Meine Adresse bestätigen',
    done: 'Ihre E-Mail-Adresse ist bestätigt.',
    next: 'Weiter zur Anmeldung',
  },
  signIn: { title: 'Anmelden', email: 'E-Mail-Adresse', next: 'Weiter', password: 'Passwort', submit: 'Anmelden' },
  enroll: {
    title: 'Anmeldung in zwei Schritten einrichten',
    code: 'Code aus der App',
    submit: 'Anmeldung in zwei Schritten einschalten',
    codesTitle: 'Speichern Sie Ihre Wiederherstellungscodes',
    saved: 'Ich habe sie gespeichert',
  },
  account: { title: 'Ihr Konto', languageLabel: 'Sprache dieser Seiten und der Nachrichten, die wir Ihnen schicken' },
};

const JAPANESE: Words = {
  locale: 'ja-JP',
  name: '猿橋 勝子',
  email: 'katsuko@acme-robotics.dev',
  password: '海の放射能を測る長い夏 1954',
  signUp: {
    title: 'アカウントを作成',
    name: 'お名前',
    email: 'メールアドレス',
    password: 'パスワード',
    submit: 'アカウントを作成',
    sent: 'katsuko@acme-robotics.dev に確認用リンクを送りました。',
  },
  mail: { subject: 'Acme Robotics のメールアドレスを確認してください', expires: '有効期限は 24 時間です。' },
  confirm: {
    title: 'メールアドレスの確認',
    password: 'パスワード',
    submit: 'アドレスを確認する',
    done: 'メールアドレスが確認されました。',
    next: 'サインインへ進む',
  },
  signIn: {
    title: 'サインイン',
    email: 'メールアドレス',
    next: '次へ',
    password: 'パスワード',
    submit: 'サインイン',
  },
  enroll: {
    title: '2 段階サインインの設定',
    code: 'アプリに表示されたコード',
    submit: '2 段階サインインを有効にする',
    codesTitle: 'リカバリーコードを保存してください',
    saved: '保存しました',
  },
  account: { title: 'アカウント', languageLabel: 'このページとお送りするメッセージの言語' },
};

async function signUpAndIn(words: Words, lang: string) {
  const tp = await newPage({ width: 1280, height: 900 }, { locale: words.locale });
  const { page, problems } = tp;
  const heading = (name: string) => page.getByRole('heading', { level: 1, name }).waitFor();

  await page.goto(`${t.url}/signup`);
  await heading(words.signUp.title);
  assert.deepEqual(await language(page), { lang, dir: 'ltr' });
  await atBothWidths(tp, `${lang}-signup`);
  await page.getByLabel(words.signUp.name).fill(words.name);
  await page.getByLabel(words.signUp.email).fill(words.email);
  await page.getByLabel(words.signUp.password, { exact: true }).fill(words.password);
  await page.getByRole('button', { name: words.signUp.submit }).click();
  await page.getByRole('status').getByText(words.signUp.sent).waitFor();
  await atBothWidths(tp, `${lang}-signup-sent`);

  // The mail is in the language of the request that caused it.
  const [mail] = await inbox.deliver(1);
  assert.equal(mail?.subject, words.mail.subject);
  assert.ok(mail?.text.includes(words.mail.expires), mail?.text);
  const link = /(http:\/\/\S+\/account\/email\/verify#\S+)/.exec(mail?.text ?? '')?.[1];
  assert.ok(link, 'the message carries the confirmation link');

  await page.goto(link);
  await heading(words.confirm.title);
  await page.getByLabel(words.confirm.password, { exact: true }).fill(words.password);
  await page.getByRole('button', { name: words.confirm.submit }).click();
  await page.getByRole('status').getByText(words.confirm.done).waitFor();
  await atBothWidths(tp, `${lang}-signup-confirmed`);

  await page.getByRole('link', { name: words.confirm.next }).click();
  await heading(words.signIn.title);
  await page.getByLabel(words.signIn.email).fill(words.email);
  await page.getByRole('button', { name: words.signIn.next, exact: true }).click();
  await page.getByLabel(words.signIn.password, { exact: true }).fill(words.password);
  await atBothWidths(tp, `${lang}-signin`);
  await page.getByRole('button', { name: words.signIn.submit, exact: true }).click();

  await heading(words.enroll.title);
  await atBothWidths(tp, `${lang}-enroll`);
  const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
  t.clock.advance(30);
  await page.getByLabel(words.enroll.code).fill(totpCode(secret, t.clock.now()));
  await page.getByRole('button', { name: words.enroll.submit }).click();
  await heading(words.enroll.codesTitle);
  await atBothWidths(tp, `${lang}-recovery-codes`);
  await page.getByRole('button', { name: words.enroll.saved }).click();
  await heading(words.account.title);
  assert.deepEqual(await language(page), { lang, dir: 'ltr' });
  await page.getByLabel(words.account.languageLabel).waitFor();
  await atBothWidths(tp, `${lang}-account`);
  assert.deepEqual(problems, []);
  return tp;
}

/** Lise, signed in on her account page, chooses French: it outranks her German browser, on pages and in mails. */
async function savedLanguageOutranksTheBrowser(german: TestPage) {
  const { page } = german;
  await page.getByLabel(GERMAN.account.languageLabel).selectOption('fr');
  await page.getByRole('button', { name: 'Sprache speichern' }).click();
  await page.getByRole('heading', { level: 1, name: 'Votre compte' }).waitFor();
  assert.deepEqual(await language(page), { lang: 'fr', dir: 'ltr' });
  assert.equal(await page.getByLabel('Langue de ces pages et des messages que nous vous envoyons').inputValue(), 'fr');
  await atBothWidths(german, 'saved-fr-account');

  // Signed out, the same German browser gets German pages again; the mail to her is still French.
  const anonymous = await newPage({ width: 390, height: 844 }, { locale: GERMAN.locale });
  await anonymous.page.goto(`${t.url}/forgot-password`);
  await anonymous.page.getByRole('heading', { level: 1, name: 'Passwort zurücksetzen' }).waitFor();
  await anonymous.page.getByLabel('E-Mail-Adresse').fill(GERMAN.email);
  await anonymous.page.getByRole('button', { name: 'Link zum Zurücksetzen senden' }).click();
  await anonymous.page.getByRole('status').getByText('Falls ein Konto').waitFor();
  const [reset] = await inbox.deliver(1);
  assert.equal(reset?.subject, 'Réinitialisez votre mot de passe Acme Robotics');
  assert.ok(reset?.text.includes('Valable 30 minutes.'), reset?.text);

  // "Same as my browser" hands the choice back to Accept-Language.
  await page.getByLabel('Langue de ces pages et des messages que nous vous envoyons').selectOption('');
  await page.getByRole('button', { name: 'Enregistrer la langue' }).click();
  await page.getByRole('heading', { level: 1, name: 'Ihr Konto' }).waitFor();
  assert.deepEqual([...german.problems, ...anonymous.problems], []);
}
describe('hosted pages and mails in the person’s language (Chromium, 1280 and 390 px)', () => {
  test('a German browser signs up, gets the German mail, confirms, signs in and enrolls in German; a language saved on the account page then outranks the browser, on pages and in mails', async () => {
    await savedLanguageOutranksTheBrowser(await signUpAndIn(GERMAN, 'de'));
  });

  test('a Japanese browser does the same in Japanese', async () => {
    await signUpAndIn(JAPANESE, 'ja');
  });

  test('Accept-Language is negotiated by q-value and region; nothing shipped falls back to the organization default', async () => {
    const cases: [string | undefined, string][] = [
      ['fr-CA;q=0.8, ja;q=0.9, en;q=0.5', 'ja'],
      ['de-AT', 'de'],
      ['pt-BR, fr;q=0.3', 'fr'],
      ['en;q=0, ar;q=0.2', 'ar'],
      ['pt-BR, zh;q=0.9', 'es'],
      ['*', 'es'],
      [undefined, 'es'],
    ];
    for (const [acceptLanguage, expected] of cases) {
      const answer = await t.app.inject({
        method: 'GET',
        url: '/signin',
        headers: acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage },
      });
      assert.equal(answer.statusCode, 200);
      assert.match(answer.body, new RegExp(`<html lang="${expected}" dir="(ltr|rtl)">`), `${acceptLanguage}`);
      assert.equal(answer.headers['content-language'], expected, `${acceptLanguage}`);
    }
    // The page the browser then draws is in that language too.
    const tp = await newPage({ width: 1280, height: 900 }, { acceptLanguage: 'fr-CA;q=0.8, ja;q=0.9' });
    await tp.page.goto(`${t.url}/forgot-password`);
    await tp.page.getByRole('heading', { level: 1, name: 'パスワードの再設定' }).waitFor();
    await atBothWidths(tp, 'negotiated-ja-forgot-password');
    const fallback = await newPage({ width: 1280, height: 900 }, { acceptLanguage: 'pt-BR' });
    await fallback.page.goto(`${t.url}/signin`);
    await fallback.page.getByRole('heading', { level: 1, name: 'Iniciar sesión' }).waitFor();
    await atBothWidths(fallback, 'default-es-signin');
    // The console stays in English whatever the browser asks for.
    const consolePage = await t.app.inject({
      method: 'GET',
      url: '/admin/console',
      headers: { 'accept-language': 'de' },
    });
    assert.match(consolePage.body, /<html lang="en" dir="ltr">/);
    assert.deepEqual([...tp.problems, ...fallback.problems], []);
  });

  test('Arabic pages are laid out right to left: dir=rtl, and logical margins mirror', async () => {
    const tp = await newPage({ width: 1280, height: 900 }, { locale: 'ar' });
    const { page } = tp;
    await page.goto(`${t.url}/signin`);
    await page.getByRole('heading', { level: 1, name: 'تسجيل الدخول' }).waitFor();
    assert.deepEqual(await language(page), { lang: 'ar', dir: 'rtl' });
    // The heading starts at the right edge of the column, and a button's gap to the next one is on its left.
    const placement = await page.evaluate(() => {
      const main = document.querySelector('main')?.getBoundingClientRect();
      const heading = document.querySelector('h1')?.getBoundingClientRect();
      const range = document.createRange();
      const h1 = document.querySelector('h1');
      if (h1) range.selectNodeContents(h1);
      const text = range.getBoundingClientRect();
      const button = document.querySelector('form button[type="submit"]');
      const style = button ? getComputedStyle(button) : null;
      return {
        textFromRight: (heading?.right ?? 0) - text.right,
        textFromLeft: text.left - (main?.left ?? 0),
        marginLeft: style?.marginLeft,
        marginRight: style?.marginRight,
      };
    });
    assert.ok(placement.textFromRight < 2, `heading text ends ${placement.textFromRight} px before the right edge`);
    assert.ok(placement.textFromLeft > 50, 'the heading text does not start at the left');
    assert.equal(placement.marginLeft, '8px');
    assert.equal(placement.marginRight, '0px');
    await atBothWidths(tp, 'ar-signin');
    await page.goto(`${t.url}/signup`);
    await page.getByRole('heading', { level: 1, name: 'إنشاء حساب' }).waitFor();
    await atBothWidths(tp, 'ar-signup');
    // The server-rendered pages carry the same attributes.
    const errorPage = await t.app.inject({
      method: 'GET',
      url: '/oauth/authorize?client_id=nobody&response_type=code',
      headers: { 'accept-language': 'ar' },
    });
    assert.equal(errorPage.statusCode, 400);
    assert.match(errorPage.body, /<html lang="ar" dir="rtl">/);
    assert.match(errorPage.body, /لا يمكن متابعة طلب تسجيل الدخول هذا/);
    assert.deepEqual(tp.problems, []);
  });
});
