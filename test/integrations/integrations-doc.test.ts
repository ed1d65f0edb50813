// docs/integrations.md quotes each configuration in test/integrations/snippets/, which the integration tests import
// and run: a snippet changed without the doc (or the doc without the snippet) fails here, so the doc cannot rot.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';

const doc = readFileSync(new URL('../../docs/integrations.md', import.meta.url), 'utf8');
const snippets = new URL('./snippets/', import.meta.url);

describe('docs/integrations.md', () => {
  const languages: Record<string, string> = { ts: 'ts', py: 'python', conf: 'apache' };
  const files = readdirSync(snippets).filter((name) => (name.split('.').pop() ?? '') in languages);

  test('has a snippet for each library the issue names', () => {
    assert.deepEqual(files.sort(), [
      'authjs-session.ts',
      'authjs.ts',
      'authlib_gatehouse.py',
      'express-openid-connect.ts',
      'jose-resource-server.ts',
      'mod-auth-openidc.conf',
      'oauth4webapi.ts',
      'oidc-client-ts.ts',
      'openid-client.ts',
    ]);
  });

  for (const name of files)
    test(`quotes test/integrations/snippets/${name} verbatim in a code block`, () => {
      const code = readFileSync(new URL(name, snippets), 'utf8');
      const language = languages[name.split('.').pop() ?? ''];
      const block = `Quoted from \`test/integrations/snippets/${name}\`:\n\n\`\`\`${language}\n${code}\`\`\`\n`;
      assert.ok(doc.includes(block), `docs/integrations.md does not quote the current ${name}`);
    });

  test('names the option the HTTP Basic refusal names', () => {
    assert.ok(doc.includes('(token_endpoint_auth_method client_secret_post)'));
  });
});
