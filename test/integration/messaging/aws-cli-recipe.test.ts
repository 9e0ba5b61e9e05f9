import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import * as z from 'zod';
import { payloadHash } from '../../../lib/hashing.js';
import { parseIdentity } from '../../../lib/identity.js';
import { defineJob } from '../../../lib/job-definition.js';
import { ROOT } from '../../support/cli-runner.js';
import { engineEndpoints } from '../../support/engine.js';
import { runProcess } from '../../support/process.js';
import { localAwsEnvironment } from '../../support/python.js';
import { queryParkedByState } from '../../support/store.js';
import { createWorkerHarness, type WorkerHarness } from '../../support/worker-harness.js';

/** The two recipes of docs/PRODUCERS.md's AWS CLI section, by their headings. */
const Recipe = { oneMessage: '### 6.1 One message', tableFirst: '### 6.2 The body in the payloads table first' };

/** The ```sh block under `heading` in docs/PRODUCERS.md: the recipe exactly as documented. */
function documentedRecipe(heading: string): string {
  const doc = readFileSync(join(ROOT, 'docs/PRODUCERS.md'), 'utf8');
  const at = doc.indexOf(heading);
  const block = at < 0 ? undefined : /```sh\n([\s\S]*?)```/.exec(doc.slice(at))?.[1];
  if (!block) throw new Error(`docs/PRODUCERS.md: no \`\`\`sh block under "${heading}"`);
  return block;
}

/** The recipe for another job: its first two lines (the job) replaced, the rest as documented. */
function recipeFor(job: { tenantId: string; operationId: string; raw: string }, heading = Recipe.tableFirst): string {
  const lines = documentedRecipe(heading).split('\n');
  expect(lines[0]).toMatch(/^TENANT=\S+ OPERATION=\S+ JOB_TYPE=\S+$/);
  expect(lines[1]).toMatch(/^RAW='.*'$/);
  return [
    `TENANT='${job.tenantId}' OPERATION='${job.operationId}' JOB_TYPE=settle`,
    `RAW='${job.raw}'`,
    ...lines.slice(2),
  ].join('\n');
}

/** CI's AWS CLI v1, in its own venv (.ci/awscli-venv); its bin goes first on the recipe's PATH when present. */
const AWSCLI_BIN = join(ROOT, '.awscli-venv/bin');

/** PATH for the recipe: the awscli venv's bin first when it has `aws`, else the machine's PATH as it is. */
function recipePath(): string {
  const path = process.env.PATH ?? '';
  return existsSync(join(AWSCLI_BIN, 'aws')) ? `${AWSCLI_BIN}:${path}` : path;
}

/** Why the recipe cannot run here (no aws CLI, jq, sha256sum or python3), or undefined. */
function missingTool(): string | undefined {
  // The recipe runs in eu-central-2 (below); moto keeps tables per region, the test's tables are in another one.
  if (engineEndpoints().engineName === 'moto') {
    return 'moto keeps tables per region and the recipe runs in eu-central-2; the main lane (dynalite) runs it';
  }
  for (const [tool, args] of [
    ['aws', ['--version']],
    ['jq', ['--version']],
    ['sha256sum', ['--version']],
    ['python3', ['--version']],
  ] as const) {
    const found = spawnSync(tool, [...args], { stdio: 'ignore', env: { ...process.env, PATH: recipePath() } });
    if (found.status !== 0) return `${tool} is not installed (CI installs aws with .ci/awscli-venv)`;
  }
  return undefined;
}

const ran: unknown[] = [];
const settle = defineJob({
  type: 'settle',
  version: 1,
  target: 'B',
  payload: z.strictObject({ merchantId: z.string(), amount: z.number(), currency: z.string() }),
  run: async (ctx) => {
    ran.push(ctx.payload);
    return { outcomeCode: 'settled' };
  },
});

describe('the AWS CLI recipe of docs/PRODUCERS.md, run as documented against the local engines', () => {
  const missing = missingTool();
  let harness: WorkerHarness;
  /** A user's project folder: the package under node_modules/leasefence, where the recipes' paths point. */
  let project: string;

  beforeAll(async () => {
    if (missing) console.log(`[leasefence tests] SKIPPED the AWS CLI recipe tests: ${missing}`);
    harness = await createWorkerHarness('clirecipe', [settle]);
    project = await mkdtemp(join(tmpdir(), 'leasefence-project-'));
    await mkdir(join(project, 'node_modules'));
    await symlink(ROOT, join(project, 'node_modules/leasefence'), 'dir');
  });
  afterAll(async () => {
    await harness?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  function runRecipe(context: TestContext, script: string) {
    if (missing) context.skip(missing);
    return runProcess('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: project,
      env: {
        ...process.env,
        ...localAwsEnvironment(),
        // AWS CLI v1 swaps in its own SQS endpoint for the regions it lists (awscli/customizations/
        // overridesslcommonname.py), ignoring AWS_ENDPOINT_URL_SQS; a region outside that list keeps the local one.
        AWS_DEFAULT_REGION: 'eu-central-2',
        PATH: recipePath(),
        PAYLOADS_TABLE: harness.tables.payloadsTable,
        QUEUE_URL: harness.queueUrl,
      },
    });
  }

  const job = {
    tenantId: 'acme',
    operationId: 'refund-r_815',
    raw: '{"merchantId":"m_42","amount":70.0,"currency":"EUR"}',
  };
  const identity = parseIdentity({ tenantId: job.tenantId, operationId: job.operationId });

  it('a new job: the body stored where the worker looks, and the worker runs it', async (context) => {
    const run = await runRecipe(context, recipeFor(job));
    const round = await harness.poll(harness.worker());

    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
    expect(await harness.store.get(identity)).toMatchObject({
      state: 'succeeded',
      payloadHash: payloadHash({ merchantId: 'm_42', amount: 70, currency: 'EUR' }),
    });
    expect(ran).toEqual([{ merchantId: 'm_42', amount: 70, currency: 'EUR' }]);
  });

  it('the same job again: sent once more, a replay the worker does not run twice', async (context) => {
    const run = await runRecipe(context, recipeFor(job));
    const round = await harness.poll(harness.worker());

    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
    expect(ran).toHaveLength(1);
  });

  it('another payload for the same identity: the conflict branch, nothing written, nothing sent', async (context) => {
    const run = await runRecipe(
      context,
      recipeFor({ ...job, raw: '{"merchantId":"m_42","amount":1,"currency":"EUR"}' }),
    );

    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`conflict: acme/refund-r_815 is bound to payload ${payloadHash(JSON.parse(job.raw))}`);
    expect(await harness.queueDepth()).toEqual({ visible: 0, inFlight: 0 });
    expect((await harness.payloads.get(identity))?.payloadHash).toBe(payloadHash(JSON.parse(job.raw)));
  });

  describe('6.1, one message carrying the body', () => {
    const carried = {
      tenantId: 'acme',
      operationId: 'refund-r_816',
      raw: '{"merchantId":"m_43","amount":1e2,"currency":"EUR"}',
    };
    const carriedIdentity = parseIdentity({ tenantId: carried.tenantId, operationId: carried.operationId });
    const quarantined = async (operationId: string) =>
      (await queryParkedByState(harness.client, harness.tables.jobsTable, 'quarantined'))
        .filter((item) => item.kind === 'quarantine' && item.operationId === operationId)
        .map((item) => item.reason);

    it('a new job: one send-message, the worker stores the body and runs the job', async (context) => {
      const run = await runRecipe(context, recipeFor(carried, Recipe.oneMessage));
      const round = await harness.poll(harness.worker());

      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
      const expected = { merchantId: 'm_43', amount: 100, currency: 'EUR' };
      expect(await harness.store.get(carriedIdentity)).toMatchObject({
        state: 'succeeded',
        payloadHash: payloadHash(expected),
      });
      expect(await harness.payloads.get(carriedIdentity)).toMatchObject({ body: expected, intact: true });
      expect(ran.at(-1)).toEqual(expected);
    });

    it('the same job again: a replay, not run twice', async (context) => {
      const runs = ran.length;
      const before = await harness.store.get(carriedIdentity);

      const run = await runRecipe(context, recipeFor(carried, Recipe.oneMessage));
      const round = await harness.poll(harness.worker());

      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
      expect(ran).toHaveLength(runs);
      expect(await harness.store.get(carriedIdentity)).toEqual(before);
    });

    it('another body for the same identity: quarantined payload_conflict, row and stored body untouched', async (context) => {
      const before = {
        row: await harness.store.get(carriedIdentity),
        body: await harness.payloads.get(carriedIdentity),
      };

      const run = await runRecipe(
        context,
        recipeFor({ ...carried, raw: '{"merchantId":"m_43","amount":5,"currency":"EUR"}' }, Recipe.oneMessage),
      );
      const round = await harness.poll(harness.worker());

      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
      expect(await quarantined(carried.operationId)).toEqual(['payload_conflict']);
      expect({
        row: await harness.store.get(carriedIdentity),
        body: await harness.payloads.get(carriedIdentity),
      }).toEqual(before);
    });

    it('a malformed job (a "#" in the operation id): quarantined invalid_envelope, no row, nothing stored', async (context) => {
      const runs = ran.length;

      const run = await runRecipe(context, recipeFor({ ...carried, operationId: 'refund#817' }, Recipe.oneMessage));
      const round = await harness.poll(harness.worker());

      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(round).toMatchObject({ received: 1, failed: 0, deleted: 1 });
      const records = (await queryParkedByState(harness.client, harness.tables.jobsTable, 'quarantined')).filter(
        (item) => item.kind === 'quarantine' && item.reason === 'invalid_envelope',
      );
      expect(records).toHaveLength(1);
      expect(ran).toHaveLength(runs);
    });
  });
});
