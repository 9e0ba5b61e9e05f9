import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's chromium (installed by .ci/run with apt); playwright-core never downloads a browser here. */
const CHROMIUM_PATH = process.env.LEASEFENCE_CHROMIUM ?? '/usr/bin/chromium';

/** Why browser tests cannot run on this machine, or undefined when they can. */
function browserMissing(): string | undefined {
  return existsSync(CHROMIUM_PATH)
    ? undefined
    : `no chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set LEASEFENCE_CHROMIUM)`;
}

/** Starts headless chromium from CHROMIUM_PATH (no sandbox: CI runs as root). */
function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
}

export { browserMissing, CHROMIUM_PATH, launchChromium };
