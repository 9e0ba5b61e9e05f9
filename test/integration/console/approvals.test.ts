import { describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import { browserMissing, useConsoleSession } from '../../support/browser.js';
import { putWorkItem } from '../../support/factories.js';

const missing = browserMissing();
if (missing) console.log(`[leasefence tests] SKIPPED console approval tests: ${missing}`);

describe.skipIf(missing !== undefined)('console item page: approve a job awaiting approval (Debian chromium)', () => {
  const ui = useConsoleSession('.local/console-approvals-test');

  it('approves it for the payload hash the page shows, with a reason, and sees it queued', async () => {
    // Prepare
    const row = await putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
      identity: { tenantId: 'acme', operationId: 'refund-big' },
      state: 'awaiting_approval',
      now: Date.now() - 60_000,
      overrides: { jobType: 'refund-settlement' },
    });

    // Act
    await ui.page.goto(`${ui.stack.state.endpoints.console as string}#/item/acme/refund-big`);
    await expect.poll(() => ui.page.getByTestId('item-state').textContent()).toBe('awaiting approval');
    await ui.page.getByRole('tab', { name: 'Approve' }).click();
    await ui.page.getByLabel('Reason').fill('ticket 912 checked');
    await ui.page.getByRole('button', { name: 'Approve item' }).click();

    // Assert
    // The committed row as the approval returned it (the local worker may claim it right after the wake-up).
    await expect.poll(() => ui.page.getByRole('status').textContent()).toContain('approve: awaiting_approval → queued');
    const stored = await ui.stack.store.get(parseIdentity({ tenantId: 'acme', operationId: 'refund-big' }));
    expect(stored?.payloadHash).toBe(row.payloadHash);
    expect(stored?.audit).toEqual([
      expect.objectContaining({ actor: 'local-operator (console)', action: 'approve', from: 'awaiting_approval' }),
    ]);
  });
});
