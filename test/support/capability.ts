import type { TestContext } from 'vitest';
import { engineEndpoints } from './engine.js';

/**
 * Skips the running test, with the reason printed and shown by the reporter, when the engine lacks
 * TransactWriteItems (dynalite). Such a test is counted as skipped, never as passed.
 */
function requireTransactions(context: TestContext): void {
  const { transactions, engineName } = engineEndpoints();
  if (transactions) return;
  const reason = `needs TransactWriteItems, which ${engineName} lacks; runs in the moto lane (.ci/moto-lane)`;
  console.log(`[leasefence tests] SKIPPED "${context.task.name}": ${reason}`);
  context.skip(reason);
}

/** The reverse gate: a test of the missing-capability error runs only where the capability is missing. */
function requireNoTransactions(context: TestContext): void {
  const { transactions, engineName } = engineEndpoints();
  if (!transactions) return;
  const reason = `checks the error for engines without TransactWriteItems; ${engineName} has them`;
  console.log(`[leasefence tests] SKIPPED "${context.task.name}": ${reason}`);
  context.skip(reason);
}

export { requireNoTransactions, requireTransactions };
