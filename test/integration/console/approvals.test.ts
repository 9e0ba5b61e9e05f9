import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../lib/clock.js';
import { DEVELOPMENT_IDENTIFIER_KEY, hashIdentifier, payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { PayloadStore } from '../../../lib/store/index.js';
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

  it('opens on Approve, shows the payload the hash binds (audited), the expiry and a coloured badge; approves it', async () => {
    // prepare: a gated refund whose body is stored, expiring in three hours
    const body = { merchantId: 'm_9', amount: 12500, currency: 'EUR' };
    const identity = { tenantId: 'acme', operationId: 'refund-review' };
    const expiresAt = Date.now() + 3 * 3_600_000;
    await putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
      identity,
      state: 'awaiting_approval',
      now: Date.now() - 60_000,
      overrides: {
        jobType: 'refund-settlement',
        payloadHash: payloadHash(body),
        payloadRef: undefined,
        payloadInline: true,
        approvalExpiresAt: expiresAt,
        approvers: 'anyone',
      },
    });
    await new PayloadStore(ui.stack.client, ui.stack.state.tables.payloads, systemClock).put(
      identity,
      body,
      payloadHash(body),
    );
    const readsBefore = await payloadReads(identity.operationId);

    // act: open the page, read what the page offers before any click, then ask for the payload
    await ui.page.goto(`${ui.stack.state.endpoints.console as string}#/item/acme/refund-review`);
    await expect.poll(() => ui.page.getByTestId('item-state').textContent()).toBe('awaiting approval');
    const selectedTab = await ui.page.getByRole('tab', { selected: true }).textContent();
    const badgeColour = await ui.page
      .getByTestId('item-state')
      .locator('.badge')
      .evaluate(
        // runs in the page; the test's types have no DOM, so the one browser function is typed here
        (badge) =>
          (globalThis as unknown as { getComputedStyle(node: unknown): { backgroundColor: string } }).getComputedStyle(
            badge,
          ).backgroundColor,
      );
    const expiry = await ui.page.getByTestId('approval-expires').textContent();
    const bodyBeforeAsking = await ui.page.getByTestId('payload-body').count();
    await ui.page.getByRole('button', { name: /Show the payload/ }).click();
    const shown = await ui.page.getByTestId('payload-body').textContent();
    const fits = await Promise.all(
      ['approval-payload', 'actions-panel'].map((id) =>
        ui.page.getByTestId(id).evaluate((panel) => {
          const box = panel as unknown as { scrollWidth: number; clientWidth: number };
          return box.scrollWidth <= box.clientWidth;
        }),
      ),
    );
    const readsAfter = await payloadReads(identity.operationId);
    await ui.page.getByLabel('Reason').fill('refund of 125 EUR checked against ticket 77');
    await ui.page.getByRole('button', { name: 'Approve item' }).click();

    // assert
    expect(selectedTab?.trim()).toBe('Approve');
    expect(badgeColour).not.toMatch(/^rgba\(0, 0, 0, 0\)$|^transparent$/);
    expect(expiry).toContain(new Date(expiresAt).toISOString());
    expect(bodyBeforeAsking).toBe(0);
    expect(JSON.parse(shown ?? '')).toEqual(body);
    expect(fits).toEqual([true, true]); // the 64-character hash wraps inside both side panels
    expect(readsAfter).toBe(readsBefore + 1);
    await expect.poll(() => ui.page.getByRole('status').textContent()).toContain('approve: awaiting_approval → queued');
    expect((await ui.stack.store.get(parseIdentity(identity)))?.audit).toEqual([
      expect.objectContaining({ action: 'approve', reason: 'refund of 125 EUR checked against ticket 77' }),
    ]);
  });

  /** The audit log's read_payload records of one operation (the console's reads are audited). */
  async function payloadReads(operationId: string): Promise<number> {
    const page = await ui.stack.store.audit.page(100);
    return page.items.filter(
      (record) =>
        record.action === 'read_payload' &&
        record.operation === hashIdentifier(operationId, DEVELOPMENT_IDENTIFIER_KEY),
    ).length;
  }
});
