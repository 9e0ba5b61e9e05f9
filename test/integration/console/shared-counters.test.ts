import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserMissing, launchChromium } from '../../support/browser.js';
import { killAll, runCli, startCommand, startMemoryStack } from '../../support/cli-runner.js';

type Stack = Awaited<ReturnType<typeof startMemoryStack>>;
type Signal = { name: string; available: boolean; value?: number };

const missing = browserMissing();
if (missing) console.log(`[leasefence tests] SKIPPED the console half of the shared-counter tests: ${missing}`);

/**
 * The stack's worker counters are shared: `leasefence demo` in another process runs its own stalled workers
 * against the stack, and their takeovers and rejected stale writes must show wherever the stack's signals do.
 */
describe('the local stack counts the workers of every process (the demo run from another terminal)', () => {
  let stack: Stack;
  let rejected: number;
  let takeovers: number;

  beforeAll(async () => {
    stack = await startMemoryStack(['--sweep-interval', '60s']);
    const demo = await runCli(['demo', '--json', ...stack.at], { timeoutMs: 240_000 });
    if (demo.code !== 0) throw new Error(`the demo failed (exit ${demo.code}):\n${demo.stderr}`);
    const report = JSON.parse(demo.stdout) as { staleWritesRejected: number; operations: Array<{ path: string }> };
    rejected = report.staleWritesRejected;
    takeovers = report.operations.filter((operation) => operation.path === 'stalled worker').length;
  }, 300_000);
  afterAll(async () => {
    await stack?.close();
    killAll();
  });

  it("counts: the stack's signals carry the demo's takeovers and rejected stale writes", async () => {
    // act
    const counts = await runCli(['counts', '--json', ...stack.at]);

    // assert
    const signals = (JSON.parse(counts.stdout) as { signals: Signal[] }).signals;
    const value = (name: string) => signals.find((signal) => signal.name === name);
    expect(rejected).toBeGreaterThan(0);
    expect(value('staleFenceRejections')).toMatchObject({ available: true, value: rejected });
    expect(value('takeoverRate')).toMatchObject({ available: true, value: takeovers });
  });

  it.skipIf(missing !== undefined)('`leasefence console` (a third process) shows the same signals', async () => {
    // prepare
    const served = startCommand(['console', '--port', '0', ...stack.at]);
    const [, url] = await served.waitFor(/: (http:\/\/127\.0\.0\.1:\d+\/)/);
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage();

      // act
      await page.goto(url as string);
      await page.getByTestId('signal-staleFenceRejections').waitFor();
      const shown = await page.getByTestId('signal-staleFenceRejections').textContent();
      const shownTakeovers = await page.getByTestId('signal-takeoverRate').textContent();

      // assert
      expect(shown).toMatch(new RegExp(`^${rejected} events`));
      expect(shownTakeovers).toMatch(new RegExp(`^${takeovers} events`));
    } finally {
      await browser?.close();
      await served.stop();
    }
  });
});
