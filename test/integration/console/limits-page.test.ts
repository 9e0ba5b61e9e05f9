import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import type { SlotLimit } from '../../../lib/flow-control/concurrency-limits.js';
import { OperatorStore } from '../../../lib/store/index.js';
import { browserMissing, useConsoleSession } from '../../support/browser.js';
import { claimFixture } from '../../support/claim-fixture.js';

const missing = browserMissing();
if (missing) console.log(`[leasefence tests] SKIPPED console limits page tests: ${missing}`);

const perKey: SlotLimit[] = [{ scope: { kind: 'key', tenantId: 'acme', key: 'account-1' }, limit: 1 }];

describe.skipIf(missing !== undefined)(
  'console Limits page: slots in use and jobs waiting per limit (Debian chromium)',
  () => {
    const ui = useConsoleSession('.local/console-limits-test');

    it("shows the key's limit full with one job waiting, the type's and tenant's limits empty, through GET /limits", async () => {
      // prepare: one job holds the key's only slot (its lease an hour out), a second waits for it
      const store = new OperatorStore({
        client: ui.stack.client,
        tableName: ui.stack.state.tables.jobs,
        clock: new ManualClock(Date.now()),
      });
      const { slots } = await store.flow();
      const holder = claimFixture({
        tenantId: 'acme',
        operationId: 'holder',
        claimId: 'claim-holder',
        jobType: 'sync',
      });
      const waiter = claimFixture({
        tenantId: 'acme',
        operationId: 'waiter',
        claimId: 'claim-waiter',
        jobType: 'sync',
      });
      expect(await slots.acquire(holder, perKey, Date.now() + 3_600_000)).toMatchObject({ granted: true });
      const partition = slots.partitionOf('sync', perKey[0]?.scope ?? { kind: 'type' });
      expect(await slots.wait(partition, 1, waiter, Date.now() - 60_000)).toBeUndefined();

      // act
      await ui.page.goto(`${ui.url}#/limits/sync?tenant=acme&key=account-1`);
      await ui.page.locator('table.limits tbody tr').nth(2).waitFor();
      const rows = await ui.page
        .locator('table.limits tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent?.trim())),
        );

      // assert: limit, size, in use, past lease, waiting
      expect(rows).toEqual([
        ['type', '—', '0', '0', '0'],
        ['tenant acme', '—', '0', '0', '0'],
        ['key acme', '1', '1', '0', '1'],
      ]);
      await expect.poll(() => ui.page.getByRole('link', { name: 'Limits' }).getAttribute('class')).toBe('active');
    });

    it('a key without a tenant is refused with the reason, nothing read', async () => {
      await ui.page.goto(`${ui.url}#/limits/sync?key=account-1`);
      await expect.poll(() => ui.page.getByRole('alert').textContent()).toMatch(/name the tenant too/);
    });
  },
);
