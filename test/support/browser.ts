import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { LoadedJobs } from '../../infra/local/jobs-module.js';
import type { RunningLocalStack } from '../../infra/local/stack.js';
import { startQuietStack } from './quiet-stack.js';

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

/** A console browser test's world: a quiet local stack, one chromium page, and the console's URL. */
interface ConsoleSession {
  readonly stack: RunningLocalStack;
  readonly page: Page;
  /** The stack's console, ending in `/` (append `#/route`). */
  readonly url: string;
}

/**
 * Registers beforeAll / afterAll (call it inside the describe, so a skipped describe starts nothing): a quiet
 * local stack in `dir` (the example jobs, or `jobs()`'s module) and a chromium page; both stopped after the file.
 * The fields are set once beforeAll has run.
 */
function useConsoleSession(dir: string, options: { jobs?: () => Promise<LoadedJobs> } = {}): ConsoleSession {
  const session = {} as { stack: RunningLocalStack; page: Page; url: string; browser: Browser };
  beforeAll(async () => {
    session.stack = await startQuietStack(dir, options.jobs ? { jobs: await options.jobs() } : {});
    session.url = session.stack.state.endpoints.console as string;
    session.browser = await launchChromium();
    session.page = await session.browser.newPage();
  });
  afterAll(async () => {
    await session.browser?.close();
    await session.stack?.stop();
  });
  return session;
}

export { browserMissing, CHROMIUM_PATH, type ConsoleSession, launchChromium, useConsoleSession };
