import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { parseIdentity } from '../../../lib/identity.js';
import { browserMissing, useConsoleSession } from '../../support/browser.js';
import { putWorkItem } from '../../support/factories.js';

const missing = browserMissing();
if (missing) console.log(`[leasefence tests] SKIPPED console browser tests: ${missing}`);

describe.skipIf(missing !== undefined)('operator console in a real browser (Debian chromium)', () => {
  const ui = useConsoleSession('.local/console-test');

  const seedUnknown = (operationId: string) =>
    putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
      identity: { tenantId: 'acme', operationId },
      state: 'unknown',
      now: Date.now() - 60_000,
      overrides: { jobType: 'refund-settlement', fence: 3, attempts: 3 },
    });

  it('loads the overview, opens an unknown item, resolves it with a reason and sees it move', async () => {
    // prepare
    await seedUnknown('refund-r_815');

    // act: overview ▶ unknown listing ▶ item ▶ resolve with a reason
    await ui.page.goto(ui.url);
    await expect.poll(() => ui.page.getByTestId('count-unknown').textContent()).toBe('1');
    const banner = await ui.page.getByTestId('target-banner').textContent();
    await ui.page.getByTestId('count-unknown').click();
    await ui.page.getByRole('link', { name: 'acme/refund-r_815' }).click();
    await expect.poll(() => ui.page.getByTestId('item-state').textContent()).toBe('unknown');
    await ui.page.getByLabel('Reason').fill('provider dashboard shows refund rf_77 settled');
    // no verdict is preselected: with a reason but no choice the action cannot be sent
    const verdictBeforeChoice = await ui.page.getByLabel('Resolve to').inputValue();
    const enabledBeforeChoice = await ui.page.getByRole('button', { name: 'Resolve item' }).isEnabled();
    await ui.page.getByLabel('Resolve to').selectOption('succeeded');
    await ui.page.getByRole('button', { name: 'Resolve item' }).click();

    // assert: the page shows the new state, fence and audit entry; the row and the overview agree
    expect(verdictBeforeChoice).toBe('');
    expect(enabledBeforeChoice).toBe(false);
    await expect.poll(() => ui.page.getByTestId('item-state').textContent()).toBe('succeeded');
    expect(await ui.page.getByRole('status').textContent()).toContain('unknown → succeeded (fence 4)');
    expect(await ui.page.getByTestId('item-fence').textContent()).toBe('4');
    expect(await ui.page.getByTestId('audit-trail').textContent()).toContain(
      'provider dashboard shows refund rf_77 settled',
    );
    const stored = await ui.stack.store.get(parseIdentity({ tenantId: 'acme', operationId: 'refund-r_815' }));
    expect(stored).toMatchObject({ state: 'succeeded', fence: 4 });
    expect(stored?.audit).toEqual([
      expect.objectContaining({ actor: 'local-operator (console)', action: 'resolve_succeeded', from: 'unknown' }),
    ]);
    await ui.page.getByRole('link', { name: 'Overview' }).click();
    await expect.poll(() => ui.page.getByTestId('count-unknown').textContent()).toBe('0');
    expect(banner).toContain('Local stack');
  });

  it('retries a class D item only after the operator states the effect did not happen', async () => {
    // prepare: a class D item whose effect may have happened (the claim marked it), claimed longer ago than any
    // worker runs (the statement is refused while a holder may still run: 15 minutes by default)
    await putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
      identity: { tenantId: 'dtenant', operationId: 'notify-1' },
      state: 'unknown',
      now: Date.now() - 60_000,
      overrides: {
        jobType: 'notify-customer',
        fence: 1,
        attempts: 1,
        targetClass: 'D',
        effectMayHaveHappened: true,
        claimedAt: Date.now() - 20 * 60_000,
      },
    });

    // act: retry without the statement, then with it
    await ui.page.goto(`${ui.url}#/items?state=unknown&tenant=dtenant`);
    await ui.page.getByRole('link', { name: 'dtenant/notify-1' }).click();
    await ui.page.getByRole('tab', { name: 'Retry' }).click();
    await ui.page.getByLabel('Reason (required').fill('mail provider shows no message sent');
    await ui.page.getByRole('button', { name: 'Retry item' }).click();
    const statement = ui.page.getByLabel(/the effect did NOT happen/);
    await statement.waitFor();
    const refusedRow = await ui.stack.store.get(parseIdentity({ tenantId: 'dtenant', operationId: 'notify-1' }));
    await statement.check();
    await ui.page.getByRole('button', { name: 'Retry item' }).click();

    // assert: refused first (nothing changed), then requeued with the statement audited
    expect(refusedRow).toMatchObject({ state: 'unknown', fence: 1 });
    expect(refusedRow?.audit).toBeUndefined();
    await expect.poll(() => ui.page.getByRole('status').textContent()).toContain('retry: unknown → queued (fence 2)');
    const stored = await ui.stack.store.get(parseIdentity({ tenantId: 'dtenant', operationId: 'notify-1' }));
    expect(stored?.audit).toEqual([expect.objectContaining({ action: 'retry', statement: 'effect_did_not_happen' })]);
  });

  it('bulk retries a filtered set after a preview and a confirmation, each retry audited', async () => {
    // prepare
    const rows = await Promise.all(
      ['a', 'b', 'c'].map((suffix) =>
        putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
          identity: { tenantId: 'bulk', operationId: `stmt-${suffix}` },
          state: 'failed_terminal',
          now: Date.now() - 600_000,
          overrides: { fence: 2 },
        }),
      ),
    );

    // act
    await ui.page.goto(`${ui.url}#/items?state=failed_terminal&tenant=bulk`);
    await ui.page.getByRole('button', { name: 'Bulk retry the filtered set…' }).click();
    await ui.page.getByRole('heading', { name: 'Bulk retry: 3 items' }).waitFor();
    await ui.page.getByLabel('Reason').fill('statement service restored');
    await ui.page.getByLabel('I checked these 3 items').check();
    await ui.page.getByRole('button', { name: 'Retry 3 items' }).click();

    // assert
    await ui.page.getByText('3 of 3 done · finished').waitFor();
    for (const row of rows) {
      const stored = await ui.stack.store.get(parseIdentity({ tenantId: row.tenantId, operationId: row.operationId }));
      expect(stored?.fence).toBe(3);
      expect(stored?.audit).toEqual([
        expect.objectContaining({ action: 'retry', from: 'failed_terminal', reason: 'statement service restored' }),
      ]);
    }
  });

  it('bulk retry goes on past a refused item in the middle, lists the refusal, and retries the rest', async () => {
    // prepare: three unknown items; the middle one is class D whose effect may have happened (409 statement_required),
    // each last claimed longer ago than any worker runs (15 minutes by default), so its statement is not too early
    const seed = (operationId: string, overrides: Record<string, unknown> = {}) =>
      putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
        identity: { tenantId: 'bulkd', operationId },
        state: 'unknown',
        now: Date.now() - 600_000,
        overrides: { fence: 2, attempts: 1, claimedAt: Date.now() - 20 * 60_000, ...overrides },
      });
    await seed('op-1');
    await seed('op-2', { targetClass: 'D', effectMayHaveHappened: true });
    await seed('op-3');

    // act
    await ui.page.goto(`${ui.url}#/items?state=unknown&tenant=bulkd`);
    await ui.page.getByRole('button', { name: 'Bulk retry the filtered set…' }).click();
    await ui.page.getByRole('heading', { name: 'Bulk retry: 3 items' }).waitFor();
    await ui.page.getByLabel('Reason').fill('provider outage over');
    await ui.page.getByLabel('I checked these 3 items').check();
    await ui.page.getByRole('button', { name: 'Retry 3 items' }).click();

    // assert: all three were tried, the refusal is listed, the other two are queued, the refused one unchanged
    await ui.page.getByText('3 of 3 done, 1 refused · finished').waitFor();
    const failures = await ui.page.locator('ul.failures li').allTextContents();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('bulkd/op-2');
    expect(failures[0]).toContain('class D');
    const stored = await Promise.all(
      ['op-1', 'op-2', 'op-3'].map((operationId) =>
        ui.stack.store.get(parseIdentity({ tenantId: 'bulkd', operationId })),
      ),
    );
    expect(stored.map((item) => [item?.state, item?.fence])).toEqual([
      ['queued', 3],
      ['unknown', 2],
      ['queued', 3],
    ]);

    // act again: the operator states the effect did not happen for the refused one, and retries it
    await ui.page.getByLabel(/the effect did NOT happen/).check();
    await ui.page.getByRole('button', { name: 'Retry the 1 refused item' }).click();
    await ui.page.getByText('1 of 1 done · finished').waitFor();
    const statement = await ui.stack.store.get(parseIdentity({ tenantId: 'bulkd', operationId: 'op-2' }));
    expect(statement).toMatchObject({ state: 'queued', fence: 3 });
    expect(statement?.audit).toEqual([
      expect.objectContaining({ action: 'retry', statement: 'effect_did_not_happen' }),
    ]);
  });

  it("lists a tenant's items in every state for state=all (the CLI's --state all), and refuses an unknown state", async () => {
    // prepare
    await putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
      identity: { tenantId: 'alls', operationId: 'done-1' },
      state: 'succeeded',
      now: Date.now() - 60_000,
    });
    await putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
      identity: { tenantId: 'alls', operationId: 'stuck-1' },
      state: 'unknown',
      now: Date.now() - 60_000,
    });

    // act
    await ui.page.goto(`${ui.url}#/items?tenant=alls&state=all`);
    await ui.page.getByRole('link', { name: 'alls/stuck-1' }).waitFor();
    const listed = await ui.page.locator('table.items').textContent();
    const allAlert = await ui.page.getByRole('alert').count();
    const order = await ui.page.getByText(/^By /).textContent();
    await ui.page.goto(`${ui.url}#/items?tenant=alls&state=finished`);
    const refused = await ui.page.getByRole('alert').textContent();

    // assert
    expect(listed).toContain('alls/done-1');
    expect(allAlert).toBe(0);
    // the listing says the order it really has: hash buckets, each by operation id (not one id order)
    expect(order).toContain('By hash bucket, then by operation id within each');
    expect(refused).toContain('There is no state "finished". Pick one: awaiting_approval, unknown, quarantined');
    expect(refused).not.toMatch(/Invalid option|expected one of/);
  });

  it('offers a tenant box on the states counted per tenant only, and counts them for that tenant', async () => {
    // prepare
    await putWorkItem(ui.stack.client, ui.stack.state.tables.jobs, {
      identity: { tenantId: 'cnt', operationId: 'ok-1' },
      state: 'succeeded',
      now: Date.now() - 60_000,
    });

    // act
    await ui.page.goto(ui.url);
    const acrossTenants = await ui.page.getByTestId('count-succeeded').textContent();
    await ui.page.locator('input[name="tenant-succeeded"]').fill('cnt');
    await ui.page.locator('input[name="tenant-succeeded"]').press('Enter');

    // assert
    expect(acrossTenants).toBe('per tenant');
    await expect.poll(() => ui.page.getByTestId('count-succeeded').textContent()).toBe('1');
    expect(ui.page.url()).toContain('tenant=cnt');
  });

  it("fits each per-tenant card's tenant box inside its card, at a desktop and a laptop width", async () => {
    const overflows: string[] = [];
    for (const width of [1440, 1280, 1024]) {
      // act: the overview at this width
      await ui.page.setViewportSize({ width, height: 900 });
      await ui.page.goto(ui.url);
      for (const state of ['succeeded', 'cancelled']) {
        const input = ui.page.locator(`input[name="tenant-${state}"]`);
        await input.waitFor();
        const box = await input.boundingBox();
        const card = await input.locator('xpath=ancestor::div[contains(@class, "card")][1]').boundingBox();
        // assert (collected): the input's right edge within the card's
        if (!box || !card || box.x + box.width > card.x + card.width || box.x < card.x) {
          overflows.push(`${width}px ${state}: input ${JSON.stringify(box)} card ${JSON.stringify(card)}`);
        }
      }
    }
    await ui.page.setViewportSize({ width: 1280, height: 720 });
    expect(overflows).toEqual([]);
  });

  it('redrives the DLQ with progress', async () => {
    // prepare: three wake-ups in the DLQ
    for (let index = 0; index < 3; index += 1) {
      await ui.stack.sqs.send(
        new SendMessageCommand({
          QueueUrl: ui.stack.state.queues.deadLetter,
          MessageBody: `{"not":"an envelope ${index}"}`,
        }),
      );
    }

    // act
    await ui.page.goto(`${ui.url}#/dlq`);
    await expect.poll(() => ui.page.getByTestId('dlq-depth').textContent()).toBe('3');
    expect(await ui.page.locator('main').textContent()).toContain(
      'Each chunk of 25 messages is one audited admin action.',
    );
    await ui.page.getByRole('button', { name: 'Redrive' }).click();

    // assert
    await expect.poll(() => ui.page.getByTestId('redrive-progress').textContent()).toContain('moved 3 of 3');
    expect(await ui.page.getByTestId('redrive-progress').textContent()).toContain('finished');
  });

  it('refuses a POST that another origin makes from the browser, and changes nothing', async () => {
    // prepare: an unknown item, and a hostile page on another origin (another port of the same host)
    await seedUnknown('refund-r_902');
    const hostile: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    const hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`;

    // act: the hostile page posts a resolve to the console's API (as a form would: no CORS preflight)
    await ui.page.goto(hostileUrl);
    const status = await ui.page.evaluate(async (target) => {
      const response = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ to: 'succeeded', reason: 'forged' }),
        mode: 'no-cors',
      }).catch(() => undefined);
      return response?.type ?? 'network-error';
    }, `${ui.url}api/items/acme/refund-r_902/resolve`);
    hostile.close();

    // assert: the browser got nothing readable, and the item is untouched
    expect(['opaque', 'network-error']).toContain(status);
    const stored = await ui.stack.store.get(parseIdentity({ tenantId: 'acme', operationId: 'refund-r_902' }));
    expect(stored).toMatchObject({ state: 'unknown', fence: 3 });
    expect(stored?.audit).toBeUndefined();
  });
});
