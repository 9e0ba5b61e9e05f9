import { describe, expect, it } from 'vitest';
import { serveConsoleApi } from '../../../infra/console/console-api.js';
import type { ConsoleContext } from '../../../infra/console/context.js';

describe('console API /schedules', () => {
  it('without the jobs module answers 404 saying how to give it, never an empty list', async () => {
    const context = { target: { kind: 'aws', label: 'x', jobsTable: 't' }, actor: 'me' } as unknown as ConsoleContext;
    const answer = await serveConsoleApi(context, 'GET', '/schedules');
    expect(answer).toEqual({
      status: 404,
      body: { error: 'no_schedules', message: expect.stringContaining('leasefence console --jobs <module>') },
    });
  });
});
