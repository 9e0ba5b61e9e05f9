import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { JobDefinitionError } from '../../lib/errors.js';
import { defineJob } from '../../lib/job-definition.js';

const base = {
  type: 'notify',
  version: 1,
  target: 'D' as const,
  payload: z.strictObject({ to: z.string() }),
  run: async () => ({ outcomeCode: 'sent' }),
};

describe('defineJob: owner, alert route, reversibility and the declared provider', () => {
  it('keeps owner, alertRoute, reversibility and provider on the definition', () => {
    const mailer = { send: async () => {} };
    const job = defineJob({
      ...base,
      owner: 'growth-team',
      alertRoute: 'slack:#growth',
      reversibility: 'irreversible',
      provider: { create: () => mailer, effects: ['send'] },
    });
    expect(job).toMatchObject({ owner: 'growth-team', alertRoute: 'slack:#growth', reversibility: 'irreversible' });
    expect(job.provider?.effects).toEqual(['send']);
    expect(job.provider?.create({ client: {} as never })).toBe(mailer);
  });

  it('leaves them out when not given (all optional)', () => {
    const job = defineJob(base);
    expect(job).not.toHaveProperty('owner');
    expect(job).not.toHaveProperty('provider');
  });

  it('refuses a bad reversibility, an empty owner, or a provider without effect methods', () => {
    expect(() => defineJob({ ...base, reversibility: 'sometimes' as never })).toThrow(JobDefinitionError);
    expect(() => defineJob({ ...base, owner: '' })).toThrow(JobDefinitionError);
    expect(() => defineJob({ ...base, provider: { create: () => ({}), effects: [] } })).toThrow(/effect method/);
    expect(() => defineJob({ ...base, provider: { create: 'nope' as never, effects: ['send'] } })).toThrow(
      JobDefinitionError,
    );
  });
});
