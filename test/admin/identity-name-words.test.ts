// The words of display names (migration 0037) that name search looks typed words up in: kept in step with every
// sign-up, rename and removal, also when two transactions race on one word, and searches through them answering as the
// trigram index alone did.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Executor, Sql } from '../../src/db/pool.ts';
import type { Sub } from '../../src/identity/ids.ts';
import { deletePendingIdentity, updateDisplayName } from '../../src/identity/store.ts';
import { adminCaller } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { untilBlocked } from '../helpers/lock-waits.ts';
import { makeAdmin, makeIdentity } from '../helpers/oauth-fixtures.ts';

const t = await startTestApp();
const admin = await makeAdmin(t);
const call = adminCaller(t, admin.cookie);
const found = async (q: string) => {
  const r = await call('GET', `/admin/identities?q=${encodeURIComponent(q)}&limit=100`);
  assert.equal(r.status, 200);
  return (r.json.identities as { sub: string }[]).map((i) => i.sub).sort();
};
/** Which of `words` the vocabulary holds. */
const held = async (...words: string[]) =>
  (
    await t.sql<{ word: string }[]>`select word from identity_name_words where word in ${t.sql(words)} order by word`
  ).map((r) => r.word);
const rename = (sub: Sub, name: string) => updateDisplayName(t.sql, sub, name, new Date());

describe('identity_name_words: the words of display names', () => {
  test('a sign-up adds its words in lower case; a word goes with its last holder', async () => {
    const a = await makeIdentity(t.sql, { displayName: 'Quillon BRASTWICK' });
    const b = await makeIdentity(t.sql, { displayName: 'Quillon  Ferrate' });
    assert.deepEqual(await held('quillon', 'brastwick', 'ferrate', ''), ['brastwick', 'ferrate', 'quillon']);

    await rename(a, 'Quillon Dornhal');
    assert.deepEqual(await held('quillon', 'brastwick', 'dornhal'), ['dornhal', 'quillon']);
    await rename(b, 'Someone Else');
    assert.deepEqual(await held('quillon', 'ferrate'), ['quillon']);
    await rename(a, 'Someone Else');
    assert.deepEqual(await held('quillon', 'dornhal', 'someone', 'else'), ['else', 'someone']);
  });

  test('removing a sign-up nobody verified removes the words only it had', async () => {
    const pending = await makeIdentity(t.sql, { displayName: 'Ysolde Marrowgate', state: 'pending_verification' });
    await makeIdentity(t.sql, { displayName: 'Ysolde Ainsley' });
    assert.equal(await deletePendingIdentity(t.sql, pending), true);
    assert.deepEqual(await held('ysolde', 'marrowgate', 'ainsley'), ['ainsley', 'ysolde']);
    assert.deepEqual(await found('marrowgate'), []);
  });

  test('a sign-up racing the rename of the last holder keeps the word, whichever locks it first', async () => {
    for (const [word, signUpFirst] of [
      ['Zorvathel', true],
      ['Velmarion', false],
    ] as const) {
      const holder = await makeIdentity(t.sql, { displayName: `${word} One` });
      let newcomer = '';
      const signUp = async (sql: Executor) => {
        newcomer = await makeIdentity(sql as Sql, { displayName: `${word} Two`, email: null });
      };
      const renameHolder = (sql: Executor) => updateDisplayName(sql, holder, 'Renamed Away', new Date());
      // The first change is made in a transaction held open until the second is waiting for the word's row.
      let commit: () => void = () => {};
      const committing = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let made: () => void = () => {};
      const firstMade = new Promise<void>((resolve) => {
        made = resolve;
      });
      const first = t.sql.begin(async (tx) => {
        await (signUpFirst ? signUp(tx) : renameHolder(tx));
        made();
        await committing;
      });
      await firstMade;
      const second = signUpFirst ? renameHolder(t.sql) : signUp(t.sql);
      await untilBlocked(t.sql, second);
      commit();
      await Promise.all([first, second]);
      assert.deepEqual(await held(word.toLowerCase()), [word.toLowerCase()], `${word}: the word is still there`);
      assert.deepEqual(await found(word), [newcomer], `${word}: the newcomer is found by it`);
    }
  });
});

describe('GET /admin/identities: names found through their words', () => {
  test('a typed word in more name words than the lookup lists still finds every name with it', async () => {
    // Seventy different words starting "ravosk": "ravoskaa", "ravoskba", …
    const byWord = new Map<string, string>();
    for (let i = 0; i < 70; i += 1) {
      const word = `ravosk${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
      byWord.set(word, await makeIdentity(t.sql, { displayName: `Oriel ${word}` }));
    }
    const everyone = [...byWord.values()].sort();
    assert.deepEqual(await found('ravosk'), everyone);
    assert.deepEqual(await found('oriel RAVOSK'), everyone);
    assert.deepEqual(await found('oriel RAVOSKBA'), [byWord.get('ravoskba')]);
    assert.deepEqual(
      await found('el ravoskb'),
      ['ravoskba', 'ravoskbb', 'ravoskbc'].map((word) => byWord.get(word)).sort(),
    );
    assert.deepEqual(await found('riel ravoskba'), [byWord.get('ravoskba')]);
  });

  test('a name more people share than one statement sorts at once still gives the newest page, and the next', async () => {
    // Oldest first, as a table fills: the first rows a scan meets are the oldest, not the page asked for.
    await t.sql`
      insert into identities (id, state, display_name, assurance, created_at)
      select 'usr_namesake' || lpad(g::text, 12, '0'), 'active', 'Common Namesake', 'ial1',
             now() - make_interval(secs => 1100 - g)
      from generate_series(1, 1100) as g`;
    const newest = (
      await t.sql<{ id: string }[]>`
      select id from identities where display_name = 'Common Namesake' order by created_at desc, id desc`
    ).map((r) => r.id);
    const first = await call('GET', '/admin/identities?q=common%20namesake&limit=100');
    assert.deepEqual(
      (first.json.identities as { sub: string }[]).map((i) => i.sub),
      newest.slice(0, 100),
    );
    const second = await call(
      'GET',
      `/admin/identities?q=common%20namesake&limit=100&cursor=${first.json.next_cursor}`,
    );
    assert.deepEqual(
      (second.json.identities as { sub: string }[]).map((i) => i.sub),
      newest.slice(100, 200),
    );
  });

  test('a typed word in no name finds nobody, whatever the other words', async () => {
    await makeIdentity(t.sql, { displayName: 'Halvard Quenby' });
    assert.deepEqual(await found('Halvard Xyzzyq'), []);
    assert.deepEqual(await found('Xyzzyq'), []);
  });

  test('white space other than ASCII stays inside a word and still matches as typed', async () => {
    const wide = await makeIdentity(t.sql, { displayName: 'Tomoe\u3000Gozenfield' });
    assert.deepEqual(await found('gozenfield'), [wide]);
    assert.deepEqual(await found('TOMOE\u3000gozen'), [wide]);
    assert.deepEqual(await found('tomoe gozen'), []);
  });
});
