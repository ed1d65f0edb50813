import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scratchDir } from '../../test/helpers/config.ts';
import { UsageError } from './args.ts';
import { logToTerminal, RotatingLogFile } from './development-log.ts';

const line = (n: number) => `${JSON.stringify({ n, msg: 'x'.repeat(20) })}\n`;

describe('the development log file', () => {
  test('is created 0600 and rotates to log.1 past its bound, keeping at most two files', () => {
    const file = path.join(scratchDir(), 'log');
    const log = new RotatingLogFile(file, line(0).length * 3);
    for (let n = 0; n < 8; n += 1) log.write(line(n));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // 0-2 filled the first file, 3-5 the second (which became log.1 when 6 came), 6-7 are in the current one.
    assert.equal(readFileSync(`${file}.1`, 'utf8'), line(3) + line(4) + line(5));
    assert.equal(readFileSync(file, 'utf8'), line(6) + line(7));
  });

  test('with two writers (workers), one renames and the other only reopens: no line is lost', () => {
    const file = path.join(scratchDir(), 'log');
    const first = new RotatingLogFile(file, line(0).length * 2 - 1);
    const second = new RotatingLogFile(file, line(0).length * 2 - 1);
    first.write(line(0));
    second.write(line(1));
    first.write(line(2)); // past first's bound: it renames the file to log.1
    second.write(line(3)); // second's count too, but the name is a new file already: it reopens
    const both = readFileSync(`${file}.1`, 'utf8') + readFileSync(file, 'utf8');
    assert.deepEqual(both.split('\n').filter(Boolean).sort(), [0, 1, 2, 3].map((n) => line(n).trim()).sort());
    assert.equal(readFileSync(`${file}.1`, 'utf8'), line(0) + line(1));
  });
});

describe('GATEHOUSE_LOG', () => {
  test('stdout keeps the JSON log on the terminal; unset or empty uses the file', () => {
    assert.equal(logToTerminal({ GATEHOUSE_LOG: 'stdout' }), true);
    assert.equal(logToTerminal({}), false);
    assert.equal(logToTerminal({ GATEHOUSE_LOG: '' }), false);
  });

  test('any other value is refused with a UsageError naming it', () => {
    assert.throws(() => logToTerminal({ GATEHOUSE_LOG: 'file' }), UsageError);
  });
});
