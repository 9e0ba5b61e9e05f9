import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runbookSection } from '../../../infra/cli/runbook.js';
import { defineJob } from '../../../lib/job-definition.js';
import { ROOT } from '../../support/cli-runner.js';

const job = (approval?: { required: true; expiresAfterMs: number; approvers?: 'anyone' | 'not-producer' }) =>
  defineJob({
    type: 'big-refund',
    version: 1,
    target: 'B',
    payload: z.strictObject({ amount: z.number() }),
    ...(approval ? { approval } : {}),
    run: async () => ({ outcomeCode: 'refunded' }),
  });

describe('the runbook of a job type with an approval gate', () => {
  it('has an awaiting_approval row: how to read the payload, approve with its hash, reject; none without a gate', () => {
    // act
    const gated = runbookSection(job({ required: true, expiresAfterMs: 2 * 3_600_000, approvers: 'not-producer' }));
    const open = runbookSection(job());

    // assert
    const row = gated.split('\n').find((line) => line.startsWith('| awaiting_approval |')) ?? '';
    expect(row).toContain('leasefence show <tenant>/<operation> --payload');
    expect(row).toContain('leasefence approve <tenant>/<operation> --payload-hash <the hash shown>');
    expect(row).toContain('leasefence reject <tenant>/<operation>');
    expect(row).toContain('120 min');
    expect(row).toContain('other than its producer');
    expect(open).not.toContain('awaiting_approval');
  });

  it('docs/RUNBOOK.md has the section for awaiting_approval, approve and reject', async () => {
    const doc = await readFile(join(ROOT, 'docs/RUNBOOK.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Jobs awaiting approval'));
    expect(section).toMatch(/leasefence ls --state awaiting_approval/);
    expect(section).toMatch(/leasefence show <tenant>\/<operation> --payload/);
    expect(section).toMatch(/leasefence approve <tenant>\/<operation> --payload-hash/);
    expect(section).toMatch(/leasefence reject <tenant>\/<operation>/);
  });
});
