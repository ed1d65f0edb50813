import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeAccount, signIn, totpCode } from '../../test/helpers/accounts.ts';
import { startTestApp } from '../../test/helpers/app.ts';
import { makeServiceClient } from '../../test/helpers/oauth-fixtures.ts';
import { clientCredentialsToken } from '../../test/helpers/oauth-flow.ts';
import { insertMessage } from '../delivery/store.ts';

// Prometheus text exposition format 0.0.4: comments, or `name{label="value",...} value [timestamp]`.
const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
const SAMPLE = new RegExp(`^(${NAME})(\\{(?:${LABEL}(?:,${LABEL})*)?\\})? (\\S+)( -?\\d+)?$`);
const COMMENT = new RegExp(`^# (?:HELP ${NAME} .*|TYPE ${NAME} (?:counter|gauge|histogram|summary|untyped))$`);

/** Parses the exposition, failing on any line outside the grammar; returns `name{labels}` → value. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || COMMENT.test(line)) continue;
    const match = SAMPLE.exec(line);
    assert.ok(match, `not Prometheus text: ${line}`);
    // Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case (prom-client writes "Nan").
    const raw = match[3] as string;
    const value = /^nan$/i.test(raw)
      ? Number.NaN
      : /^[+-]?inf$/i.test(raw)
        ? Number(raw.replace(/inf/i, 'Infinity'))
        : Number(raw);
    assert.ok(!Number.isNaN(value) || /^nan$/i.test(raw), `bad value in ${line}`);
    samples.set(`${match[1]}${match[2] ?? ''}`, value);
  }
  return samples;
}

describe('GET /metrics', async () => {
  const t = await startTestApp();
  const token = t.secrets.metrics.toString('base64url');
  const scrape = async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.statusCode, 200);
    return { response, samples: parseExposition(response.body) };
  };

  test('answers Prometheus text, not cached, with process and request metrics, to the bearer token', async () => {
    await t.app.inject({ method: 'GET', url: '/health/live' });
    await t.app.inject({ method: 'GET', url: '/no/such/path/12345' });
    const { response, samples } = await scrape();
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.ok((samples.get('process_resident_memory_bytes') ?? 0) > 0);
    assert.ok(samples.has('process_cpu_seconds_total'));
    assert.equal(
      samples.get(
        'gatehouse_http_request_duration_seconds_count{method="GET",route="/health/live",status_class="2xx"}',
      ),
      1,
    );
    // The raw URL of an unmatched request never becomes a label.
    assert.equal(
      samples.get('gatehouse_http_request_duration_seconds_count{method="GET",route="unmatched",status_class="4xx"}'),
      1,
    );
    assert.doesNotMatch(response.body, /no\/such\/path/);
    assert.equal(
      samples.get(
        'gatehouse_http_request_duration_seconds_count{method="GET",route="/health/live",status_class="2xx"}',
      ),
      1,
    );
  });

  test('refuses a request without a token with 401 invalid_token and the envelope', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers['www-authenticate'], 'Bearer realm="metrics"');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.deepEqual(response.json(), {
      error: 'invalid_token',
      error_description: 'Send the metrics bearer token as Authorization: Bearer <token>',
      request_id: response.headers['x-request-id'],
    });
  });

  test('refuses a wrong token, a token of another scheme and a token with extra text with 401 invalid_token', async () => {
    const wrong = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const authorization of [`Bearer ${wrong}`, `Basic ${token}`, `Bearer ${token}x`, `Bearer ${token} `]) {
      const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
      assert.equal(response.statusCode, 401, authorization);
      assert.deepEqual(response.json(), {
        error: 'invalid_token',
        error_description: 'Send the metrics bearer token as Authorization: Bearer <token>',
        request_id: response.headers['x-request-id'],
      });
    }
  });

  test('counts sign-in successes, failures by reason and lockouts after real sign-ins', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const ok = await signIn(t.app, account.email, {
      password: account.password,
      totp: totpCode(account.totpSeed as string, t.clock.now()),
    });
    assert.equal(ok.response.statusCode, 200);
    // Five wrong passwords reach the account threshold: the fifth failure starts a lock, the sixth is throttled.
    for (let i = 0; i < 6; i += 1) await signIn(t.app, account.email, { password: `wrong guess ${i} of it` });
    const { samples } = await scrape();
    assert.equal(samples.get('gatehouse_sign_ins_total{method="password",outcome="success"}'), 1);
    assert.equal(samples.get('gatehouse_sign_ins_total{method="password",outcome="credentials"}'), 5);
    assert.equal(samples.get('gatehouse_sign_ins_total{method="password",outcome="throttled"}'), 1);
    assert.equal(samples.get('gatehouse_lockouts_total'), 1);
  });

  test('counts token responses by grant type, and not refused token requests', async () => {
    const service = await makeServiceClient(t.sql, t.secrets.clientSecret);
    assert.equal((await clientCredentialsToken(t, service)).status, 200);
    assert.equal((await clientCredentialsToken(t, service)).status, 200);
    assert.equal((await clientCredentialsToken(t, { ...service, secret: 'not the secret' })).status, 401);
    const { samples } = await scrape();
    assert.equal(samples.get('gatehouse_tokens_issued_total{grant_type="client_credentials"}'), 2);
    assert.equal(
      samples.get(
        'gatehouse_http_request_duration_seconds_count{method="POST",route="/oauth/token",status_class="4xx"}',
      ),
      1,
    );
  });

  test('reports the outbox depth read from the database on scrape', async () => {
    const now = t.clock.now();
    for (const id of ['msg_metrics1', 'msg_metrics2', 'msg_metrics3'])
      await insertMessage(t.sql, { id, template: 'verify_email', recipient: 'a@acme.test', sealedBody: 'x' }, now);
    await t.sql`update outbox_messages set state = 'dead', sealed_body = null where id = 'msg_metrics3'`;
    const { samples } = await scrape();
    assert.equal(samples.get('gatehouse_outbox_messages{state="pending"}'), 2);
    assert.equal(samples.get('gatehouse_outbox_messages{state="dead"}'), 1);
    assert.ok((samples.get('gatehouse_database_query_seconds') ?? -1) > 0);
  });
});
