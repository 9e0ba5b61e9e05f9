import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../lib/clock.js';
import { budgetScopeValue } from '../../../lib/flow-control/budget-scope.js';
import type { SlotLimit } from '../../../lib/flow-control/concurrency-limits.js';
import { OperatorStore } from '../../../lib/store/index.js';
import { browserMissing, useConsoleSession } from '../../support/browser.js';
import { claimFixture } from '../../support/claim-fixture.js';

const missing = browserMissing();
if (missing) console.log(`[leasefence tests] SKIPPED console limits page tests: ${missing}`);

const perKey: SlotLimit[] = [{ scope: { kind: 'key', tenantId: 'acme', key: 'account-1' }, limit: 1 }];

describe.skipIf(missing !== undefined)(
  'console Limits page: slots in use and jobs waiting per limit and per rate budget (Debian chromium)',
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
      expect(await slots.wait(partition, 1, waiter, { since: Date.now() - 60_000, lane: 'urgent' })).toBeUndefined();

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

    it("shows a provider's budgets with the jobs waiting on each, through GET /limits?provider=", async () => {
      // prepare: the tenant's mail budget (1 an hour) spent, one job recorded as waiting on it
      const store = new OperatorStore({
        client: ui.stack.client,
        tableName: ui.stack.state.tables.jobs,
        clock: new ManualClock(Date.now()),
      });
      const flow = await store.flow();
      const mail = { provider: 'mail', scope: budgetScopeValue({ kind: 'tenant', tenantId: 'acme' }) };
      expect(await flow.takeToken(mail, { limit: 1, intervalMs: 3_600_000, burst: 1 })).toMatchObject({
        granted: true,
      });
      const identity = { tenantId: 'acme', operationId: 'mail-waiter' };
      await flow.recordBudgetWait({ ref: mail, identity, jobType: 'sync', waitMs: 3_600_000 });

      // act
      await ui.page.goto(`${ui.url}#/limits/sync?tenant=acme&provider=mail`);
      await ui.page.locator('table.budgets tbody tr').nth(1).waitFor();
      const rows = await ui.page
        .locator('table.budgets tbody tr')
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim())));

      // assert: budget, rate, burst, tokens, (next grant), waiting
      expect(rows.map((row) => [row[0], row[1], row[2], row[3], row[5]])).toEqual([
        ['mail shared', '—', '—', 'full (no row)', '0'],
        ['mail tenant', '1 per 3600000 ms', '1', '0', '1'],
      ]);
      expect(rows[1]?.[6]).not.toBe('—');
    });

    it('a key without a tenant is refused with the reason, nothing read', async () => {
      await ui.page.goto(`${ui.url}#/limits/sync?key=account-1`);
      await expect.poll(() => ui.page.getByRole('alert').textContent()).toMatch(/name the tenant too/);
    });
  },
);
