/**
 * npm run screenshots: starts an in-memory local stack, seeds an operator's view, and saves the console's overview
 * and an item page to docs/ with Debian's chromium (no browser download).
 */
import { mkdir } from 'node:fs/promises';
import { browserMissing, launchChromium } from '../support/browser.js';
import { seedConsoleData } from '../support/console-seed.js';
import { startQuietStack } from '../support/quiet-stack.js';

const missing = browserMissing();
if (missing) {
  console.error(`screenshots need a browser: ${missing}`);
  process.exit(1);
}
const stack = await startQuietStack('.local/screenshots');
const browser = await launchChromium();
try {
  const item = await seedConsoleData(stack.client, stack.state.tables.jobs, Date.now());
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  await mkdir('docs', { recursive: true });
  await page.goto(stack.state.endpoints.console as string);
  await page.getByTestId('count-unknown').waitFor();
  await page.screenshot({ path: 'docs/console-overview.png' });
  await page.goto(`${stack.state.endpoints.console}#/item/${item.tenantId}/${item.operationId}`);
  await page.getByTestId('item-state').waitFor();
  await page.screenshot({ path: 'docs/console-item.png', fullPage: true });
  console.log('saved docs/console-overview.png and docs/console-item.png');
} finally {
  await browser.close();
  await stack.stop();
}
