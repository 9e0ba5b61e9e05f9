import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningLocalStack } from '../../../infra/local/stack.js';
import { parseIdentity } from '../../../lib/identity.js';
import { browserMissing, launchChromium } from '../../support/browser.js';
import { putWorkItem } from '../../support/factories.js';
import { startQuietStack } from '../../support/quiet-stack.js';

const missing = browserMissing();
if (missing) console.log(`[leasefence tests] SKIPPED console approval tests: ${missing}`);

describe.skipIf(missing !== undefined)('console item page: approve a job awaiting approval (Debian chromium)', () => {
  let stack: RunningLocalStack;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    stack = await startQuietStack('.local/console-approvals-test');
    browser = await launchChromium();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('approves it for the payload hash the page shows, with a reason, and sees it queued', async () => {
    // Prepare
    const row = await putWorkItem(stack.client, stack.state.tables.jobs, {
      identity: { tenantId: 'acme', operationId: 'refund-big' },
      state: 'awaiting_approval',
      now: Date.now() - 60_000,
      overrides: { jobType: 'refund-settlement' },
    });

    // Act
    await page.goto(`${stack.state.endpoints.console as string}#/item/acme/refund-big`);
    await expect.poll(() => page.getByTestId('item-state').textContent()).toBe('awaiting approval');
    await page.getByRole('tab', { name: 'Approve' }).click();
    await page.getByLabel('Reason').fill('ticket 912 checked');
    await page.getByRole('button', { name: 'Approve item' }).click();

    // Assert
    // The committed row as the approval returned it (the local worker may claim it right after the wake-up).
    await expect.poll(() => page.getByRole('status').textContent()).toContain('approve: awaiting_approval → queued');
    const stored = await stack.store.get(parseIdentity({ tenantId: 'acme', operationId: 'refund-big' }));
    expect(stored?.payloadHash).toBe(row.payloadHash);
    expect(stored?.audit).toEqual([
      expect.objectContaining({ actor: 'local-operator (console)', action: 'approve', from: 'awaiting_approval' }),
    ]);
  });
});
