import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../infra/cli/main.js';
import { loadJobsModule } from '../../../infra/local/jobs-module.js';
import { browserMissing, useConsoleSession } from '../../support/browser.js';
import { ROOT } from '../../support/cli-runner.js';
import { putWorkItem } from '../../support/factories.js';
import { captureIo } from '../../unit/cli/io.js';
import { latestTickAt, SCHEDULE_HOUR_VARIABLE } from './fixtures/schedules-module.js';

const MODULE = join(ROOT, 'test/integration/console/fixtures/schedules-module.ts');
const DAY = 86_400_000;
const missing = browserMissing();
if (missing) console.log(`[leasefence tests] SKIPPED console schedules page tests: ${missing}`);

describe.skipIf(missing !== undefined)(
  'console Schedules page: what leasefence schedules says (Debian chromium)',
  () => {
    // The schedules tick daily three hours ago: nothing falls due during the test, every recent tick is judgeable.
    const hour = new Date(Date.now() - 3 * 3_600_000).getUTCHours();
    process.env[SCHEDULE_HOUR_VARIABLE] = String(hour);
    afterAll(() => {
      delete process.env[SCHEDULE_HOUR_VARIABLE];
    });
    const ui = useConsoleSession('.local/console-schedules-test', { jobs: () => loadJobsModule(MODULE) });

    /** `leasefence schedules --jobs MODULE` against the test's stack: its table rows by schedule name. */
    async function cliRows(): Promise<{ code: number; rows: Record<string, string> }> {
      const { state } = ui.stack;
      const io = captureIo(Date.now());
      const code = await main(
        [
          'schedules',
          '--jobs',
          MODULE,
          ...['--jobs-table', state.tables.jobs, '--payloads-table', state.tables.payloads],
          ...['--queue-url', state.queues.jobs, '--deadline-shards', String(state.settings.deadlineShards)],
          ...['--dynamodb-endpoint', state.endpoints.dynamodb, '--sqs-endpoint', state.endpoints.sqs],
        ],
        io,
      );
      const lines = io.stdout().split('\n');
      const rows = Object.fromEntries(
        ['digest', 'undeclared', 'fresh'].map((name) => [
          name,
          lines.find((line) => line.startsWith(`${name} `)) ?? '',
        ]),
      );
      return { code, rows };
    }

    it('lists each schedule with job type, tenant, expression, next tick, last run and the same verdict as the CLI', async () => {
      // prepare: digest's middle tick ran (its newest and oldest did not), fresh's only tick is queued
      const latest = latestTickAt(hour, Date.now());
      const seed = (tenantId: string, name: string, tick: number, state: 'succeeded' | 'queued') =>
        putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
          identity: { tenantId, operationId: `schedule/${name}/${new Date(tick).toISOString()}` },
          state,
          now: tick,
          overrides: { jobType: 'daily-digest' },
        });
      await seed('acme', 'digest', latest - DAY, 'succeeded');
      await seed('globex', 'fresh', latest, 'queued');

      // act
      await ui.page.goto(`${ui.url}#/schedules`);
      await ui.page.getByTestId('schedules').waitFor();
      const verdict = (name: string) => ui.page.getByTestId(`schedule-verdict-${name}`).textContent();
      const page = {
        digest: await verdict('digest'),
        undeclared: await verdict('undeclared'),
        fresh: await verdict('fresh'),
      };
      const rowOf = (name: string) => ui.page.getByTestId(`schedule-verdict-${name}`).locator('xpath=..');
      const digestRow = await rowOf('digest').textContent();
      const notes = await ui.page.getByTestId('schedule-notes').locator('li').allTextContents();
      const cli = await cliRows();

      // assert: the page says what the CLI says, and what the rows are
      expect(Object.values(page).map((text) => text?.trim())).toEqual(['MISSED 2', 'NOT EVALUATED', 'ok']);
      for (const [name, text] of Object.entries(page))
        expect(cli.rows[name]?.trimEnd()).toMatch(new RegExp(`${text?.trim()}$`));
      expect(cli.code).toBe(1);
      expect(digestRow).toContain('daily-digest');
      expect(digestRow).toContain('acme');
      expect(digestRow).toContain(`cron(0 ${hour} * * ? *) UTC`);
      const iso = (time: number) => `${new Date(time).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
      expect(digestRow).toContain(iso(latest + DAY)); // next tick
      expect(digestRow).toContain(`${iso(latest - DAY)}`); // last run
      expect(digestRow).toContain('succeeded');
      const digestNotes = notes.filter((note) => note.startsWith('digest'));
      expect(digestNotes).toEqual([
        expect.stringContaining(`${iso(latest)}`),
        expect.stringContaining(`${iso(latest - 2 * DAY)}`),
      ]);
      expect(digestNotes.every((note) => note.includes('missed: no job'))).toBe(true);
      expect(
        notes.filter((note) => note.startsWith('undeclared')).every((note) => note.includes('NOT EVALUATED')),
      ).toBe(true);
      await rowOf('fresh').getByRole('link').click();
      await expect.poll(() => ui.page.getByTestId('item-state').textContent()).toBe('queued');
    });
  },
);
