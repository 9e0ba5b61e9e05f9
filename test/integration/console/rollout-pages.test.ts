import { describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import { browserMissing, useConsoleSession } from '../../support/browser.js';
import { putWorkItem } from '../../support/factories.js';

const missing = browserMissing();
if (missing) console.log(`[leasefence tests] SKIPPED console shadow and runbook browser tests: ${missing}`);

describe.skipIf(missing !== undefined)('console: shadow page and the item page runbook (Debian chromium)', () => {
  const ui = useConsoleSession('.local/console-rollout-test');

  /** One execution the existing consumer ran (start and end), as shadowHandler records it. */
  async function ran(operationId: string, startedAt: number, endedAt: number) {
    const identity = parseIdentity({ tenantId: 'acme', operationId });
    const start = { identity, jobType: 'refund', payloadHash: 'b'.repeat(64), leaseMs: 30_000 };
    const fence = await ui.stack.store.shadow.start({ ...start, startedAt, retentionMs: 86_400_000 });
    await ui.stack.store.shadow.end(identity, fence, { endedAt, outcome: 'succeeded' });
  }

  it('the shadow page names each operation the existing consumer ran twice, by job type, with a link to it', async () => {
    // prepare: refund-1 ran twice, overlapping (the stale-worker case); refund-2 once
    const now = Date.now();
    await ran('refund-1', now - 10_000, now - 2_000);
    await ran('refund-1', now - 9_000, now - 1_000);
    await ran('refund-2', now - 5_000, now - 4_000);

    // act
    await ui.page.goto(`${ui.url}#/shadow`);

    // assert
    await expect.poll(() => ui.page.getByTestId('shadow-verdict').textContent()).toContain('FINDINGS');
    expect(await ui.page.getByTestId('double-runs-refund').textContent()).toBe('1');
    const row = await ui.page.locator('tr', { hasText: 'refund' }).textContent();
    expect(row).toContain('ran twice: 1');
    expect(row).toContain('ran concurrently: 1');
    expect(row).not.toContain('refund-2');
    await ui.page.getByRole('link', { name: 'acme/refund-1' }).first().click();
    expect(ui.page.url()).toContain('#/item/acme/refund-1');
  });

  it("the item page shows the job type's runbook section, and says why when the type has none", async () => {
    // prepare: an unknown item of an example type, and one of a type the jobs module does not have
    const seed = (operationId: string, jobType: string) =>
      putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
        identity: { tenantId: 'acme', operationId },
        state: 'unknown',
        now: Date.now() - 60_000,
        overrides: { jobType, fence: 2, attempts: 2 },
      });
    await seed('statement-7', 'statement-publication');
    await seed('legacy-1', 'legacy-export');

    // act + assert
    await ui.page.goto(`${ui.url}#/item/acme/statement-7`);
    await expect.poll(() => ui.page.getByTestId('runbook').textContent()).toContain('## statement-publication');
    const text = (await ui.page.getByTestId('runbook').textContent()) ?? '';
    expect(text).toContain('- Owner: statements-team');
    expect(text).toContain('- Alert route: slack:#statements-oncall');
    expect(text).toContain('Authoritative generation during an incident');
    await ui.page.goto(`${ui.url}#/item/acme/legacy-1`);
    await expect
      .poll(() => ui.page.getByTestId('runbook').textContent())
      .toContain('the jobs module has no job type legacy-export');
  });
});
