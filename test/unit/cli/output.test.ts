import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDemoReport } from '../../../infra/cli/demo-report.js';
import {
  cell,
  escapeForTerminal,
  formatPairs,
  formatTable,
  relativeTime,
  shortDuration,
} from '../../../infra/cli/output.js';
import {
  isProcessAlive,
  readLiveStackState,
  readStackState,
  removeStackState,
  type StackState,
  writeStackState,
} from '../../../infra/local/state-file.js';

/** Code points a terminal would act on (C0 but newline, DEL, C1, bidi overrides), checked without a regex. */
function rawControls(text: string): number[] {
  return [...text]
    .map((character) => character.codePointAt(0) ?? 0)
    .filter(
      (code) => (code < 0x20 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f) || (code >= 0x202a && code <= 0x202e),
    );
}

describe('terminal escaping', () => {
  const spoof = '\u001b[2J\u001b[31mFAKE: resolved by root';

  it('shows every control character as a \\uXXXX escape instead of sending it to the terminal', () => {
    expect(escapeForTerminal(spoof)).toBe('\\u001b[2J\\u001b[31mFAKE: resolved by root');
    expect(escapeForTerminal('a\rb\u0008c\u009bd\u202ee\nf\tg')).toBe(
      'a\\u000db\\u0008c\\u009bd\\u202ee\\u000af\\u0009g',
    );
    expect(escapeForTerminal('line 1\nline\t2\u001b', true)).toBe('line 1\nline\t2\\u001b');
    expect(escapeForTerminal('Rückerstattung 👍 "ok"')).toBe('Rückerstattung 👍 "ok"');
  });

  it('tables, label/value pairs and cells never print a raw control character', () => {
    const outputs = [
      formatTable(['ACTOR', 'REASON'], [['root', spoof]]),
      formatPairs([['reason', spoof]]),
      cell(spoof),
      cell({ note: 'x\u009b2J' }),
    ];
    for (const output of outputs) {
      expect(rawControls(output), output).toEqual([]);
      expect(output).toMatch(/\\u00(1b|9b)/);
    }
  });

  it('escaped output stays valid JSON when the text was inside a JSON string', () => {
    const json = JSON.stringify({ reason: 'x\u009by\u202ez' });
    expect(JSON.parse(escapeForTerminal(json, true))).toEqual({ reason: 'x\u009by\u202ez' });
  });
});

describe('human output', () => {
  const now = Date.UTC(2026, 8, 13, 12, 0, 0);

  it('says how long ago (or until when) in the largest whole unit', () => {
    expect(relativeTime(now - 3 * 60_000 - 5_000, now)).toBe('3m ago');
    expect(relativeTime(now - 12_000, now)).toBe('12s ago');
    expect(relativeTime(now - 5 * 3_600_000, now)).toBe('5h ago');
    expect(relativeTime(now - 3 * 86_400_000, now)).toBe('3d ago');
    expect(relativeTime(now + 20_000, now)).toBe('in 20s');
    expect(relativeTime(now - 200, now)).toBe('just now');
    expect(relativeTime(undefined, now)).toBe('-');
    expect(shortDuration(47 * 3_600_000)).toBe('47h');
  });

  it('aligns table columns on the widest cell', () => {
    expect(
      formatTable(
        ['ITEM', 'STATE'],
        [
          ['a/1', 'unknown'],
          ['tenant/long-operation', 'queued'],
        ],
      ),
    ).toBe(
      ['ITEM                   STATE', 'a/1                    unknown', 'tenant/long-operation  queued'].join('\n'),
    );
  });

  it('ends the demo report with the side effects per operation, after the timelines and the final state', () => {
    const text = formatDemoReport({
      runTag: 'abc',
      engine: { name: 'dynalite', transactions: false },
      operations: [
        {
          tenantId: 'm_4471',
          operationId: 'refund-r_816-abc',
          jobType: 'refund-settlement',
          targetClass: 'C+B',
          path: 'stalled worker',
          state: 'succeeded',
          fence: 2,
          sideEffects: 1,
          sideEffectKind: 'gateway refunds',
          detail: 'refund row sent, last written under fence 2',
        },
      ],
      timelines: [
        { title: 'A stalled worker', events: [{ atMs: 31_000, actor: 'worker-B', text: 'worker-B took over' }] },
      ],
      staleWritesRejected: 1,
      skipped: [{ jobType: 'inventory-reservation', reason: 'no transactions' }],
      sideEffectsPerOperation: 1,
    });
    expect(text).toContain('  t+31s   worker-B took over');
    expect(text).toContain('skipped inventory-reservation: no transactions');
    expect(text).toMatch(
      /m_4471\/refund-r_816-abc +refund-settlement +C\+B +stalled worker +succeeded +2 +1 gateway refunds/,
    );
    expect(text.split('\n').at(-1)).toBe('side effects per operation: 1');
  });
});

describe('the local stack state file', () => {
  const state = (pid: number): StackState => ({
    version: 1,
    pid,
    startedAt: new Date(0).toISOString(),
    memory: true,
    region: 'us-east-1',
    endpoints: { dynamodb: 'http://127.0.0.1:1', sqs: 'http://127.0.0.1:2', admin: 'http://127.0.0.1:3' },
    tables: { jobs: 'j-table', payloads: 'p-table', examples: 'e-table' },
    queues: { jobs: 'http://q/1/jobs', deadLetter: 'http://q/1/dlq' },
    settings: { deadlineShards: 32 },
    jobs: { source: 'examples', types: ['statement-publication'] },
  });

  it('round-trips, is live only while its process runs, ignores garbage, and is removed only by its owner', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leasefence-state-'));
    try {
      await writeStackState(dir, state(process.pid));
      expect(await readLiveStackState(dir)).toEqual(state(process.pid));
      await removeStackState(dir, process.pid + 1);
      expect(await readStackState(dir)).toBeDefined();
      await removeStackState(dir, process.pid);
      expect(await readStackState(dir)).toBeUndefined();

      await writeStackState(dir, state(2 ** 22 + 12_345));
      expect(isProcessAlive(2 ** 22 + 12_345)).toBe(false);
      expect(await readLiveStackState(dir)).toBeUndefined();

      await writeFile(join(dir, 'stack.json'), '{"version": 1, "pid": "oops"}');
      expect(await readStackState(dir)).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
