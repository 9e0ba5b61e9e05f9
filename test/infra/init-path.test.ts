import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { initInputsOf } from '../bench/support/bundle-composition.js';
import { constructBundling } from '../bench/support/construct-bundling.js';

// What a cold start evaluates: the modules each function's bundle holds, and the AWS SDK packages it imports at
// module scope (statically, so Node loads them before the handler module runs). Built with the construct's
// esbuild settings and the AWS SDK external, as deployed by default. Counts and names only, never time.

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRIES = {
  worker: 'examples/worker.ts',
  sweeper: 'functions/sweeper.ts',
  admin: 'functions/admin.ts',
} as const;

/** The bundle of one entry: its input files (repository-relative) and the packages it imports at module scope. */
interface InitPath {
  inputs: string[];
  /** The source files module init evaluates: reached from the entry by import statements only (no import()). */
  staticInputs: string[];
  staticPackages: string[];
  dynamicPackages: string[];
  /** Bundled modules reached by `import()` (`importer -> imported`): esbuild wraps each and all it imports. */
  bundledDynamicImports: string[];
}

async function initPathOf(entry: string, faultLayer = false, flowControl = false): Promise<InitPath> {
  const result = await build({
    ...constructBundling(false, { faultLayer, flowControl }),
    absWorkingDir: REPO_ROOT,
    entryPoints: [entry],
    outfile: 'index.mjs',
    write: false,
    metafile: true,
    sourcemap: false,
  });
  const output = Object.values((result.metafile as Metafile).outputs).find((out) => out.entryPoint !== undefined);
  if (!output) throw new Error(`${entry}: esbuild wrote no entry output`);
  const external = (kind: string) => [
    ...new Set(
      output.imports
        .filter((imp) => imp.external && imp.kind === kind && !imp.path.startsWith('node:'))
        .map((imp) => imp.path),
    ),
  ];
  const inputs = Object.keys(output.inputs);
  const bundled = new Set(inputs);
  const metafileInputs = (result.metafile as Metafile).inputs;
  const bundledDynamicImports = inputs.flatMap((input) =>
    (metafileInputs[input]?.imports ?? [])
      .filter((imp) => imp.kind === 'dynamic-import' && !imp.external && bundled.has(imp.path))
      .map((imp) => `${input} -> ${imp.path}`),
  );
  return {
    inputs,
    staticInputs: initInputsOf((result.metafile as Metafile).inputs, entry, bundled),
    staticPackages: external('import-statement'),
    dynamicPackages: external('dynamic-import'),
    bundledDynamicImports,
  };
}

const OTEL_API = '@opentelemetry/api';
const paths: Partial<Record<keyof typeof ENTRIES, InitPath>> = {};
/** The worker as a test stack with `faultInjection` bundles it (the fault layer in). */
let workerWithFaults: InitPath | undefined;
let workerWithFlow: InitPath | undefined;

beforeAll(async () => {
  for (const [name, entry] of Object.entries(ENTRIES)) paths[name as keyof typeof ENTRIES] = await initPathOf(entry);
  workerWithFaults = await initPathOf(ENTRIES.worker, true);
  workerWithFlow = await initPathOf(ENTRIES.worker, false, true);
}, 120_000);

function pathOf(name: keyof typeof ENTRIES): InitPath {
  const path = paths[name];
  if (!path) throw new Error(`${name} was not bundled`);
  return path;
}

describe('worker cold start: what its module init loads', () => {
  it('imports only the DynamoDB SDK at module scope; SQS and Secrets Manager load on first use', () => {
    const worker = pathOf('worker');
    expect(worker.staticPackages.sort()).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/util-dynamodb',
    ]);
    expect(worker.dynamicPackages).toEqual(
      expect.arrayContaining(['@aws-sdk/client-secrets-manager', '@aws-sdk/client-sqs']),
    );
  });
});

describe('fault injection for `check --stack` at cold start (issue #41)', () => {
  it('a worker without faultInjection bundles no fault layer at all (the construct defines it out)', () => {
    expect(pathOf('worker').inputs.filter((file) => file.startsWith('lib/fault-injection/'))).toEqual([]);
  });

  it('with faultInjection the worker bundle holds the fault layer', () => {
    const worker = workerWithFaults;
    if (!worker) throw new Error('the worker with its fault layer was not bundled');
    expect(worker.inputs).toContain('lib/fault-injection/injector.ts');
    expect(worker.staticInputs).toContain('lib/lambda/fault-switch.ts');
  });
});

describe('tracing at cold start (issue #43 item 7): off costs nothing at import', () => {
  it('the OpenTelemetry API is never bundled nor imported at module scope: import()ed only when tracing is on', () => {
    for (const name of ['worker', 'sweeper', 'admin'] as const) {
      const { inputs, staticPackages } = pathOf(name);
      expect({ name, staticPackages }).toEqual({ name, staticPackages: expect.not.arrayContaining([OTEL_API]) });
      expect(inputs.filter((file) => file.includes('node_modules/@opentelemetry/'))).toEqual([]);
    }
    expect(pathOf('worker').dynamicPackages).toContain(OTEL_API);
  });

  it('the worker bundles the OpenTelemetry adapter, which loads the API only when a tracer is asked for', () => {
    expect(pathOf('worker').staticInputs).toContain('lib/tracing/open-telemetry.ts');
  });
});

describe('flow control at cold start (issue #42): a deployment without rate limits evaluates none of it', () => {
  const LAZY = ['lib/worker/rate-gate.ts', 'lib/store/flow-control/budgets.ts'];

  it('with flowControl the worker bundles the rate gate and the budgets room', () => {
    const worker = workerWithFlow;
    if (!worker) throw new Error('the worker with flow control was not bundled');
    for (const lazy of LAZY) expect(worker.inputs).toContain(lazy);
  });

  it('without flowControl (the construct default) no function bundles either: defined out at build time', () => {
    for (const name of ['worker', 'sweeper', 'admin'] as const) {
      const found = pathOf(name).inputs.filter((input) => LAZY.includes(input));
      expect({ name, found }).toEqual({ name, found: [] });
    }
  });

  it("without flowControl no function bundles the store's flow-control facet, its waits or the limits' schemas", () => {
    const OUT = [
      'lib/store/flow-control/flow-control-store.ts',
      'lib/store/flow-control/flow-transitions.ts',
      'lib/store/flow-control/slots.ts',
      'lib/flow-control/concurrency-limits.ts',
      'lib/flow-control/rate-limits.ts',
    ];
    for (const name of ['worker', 'sweeper', 'admin'] as const) {
      const found = pathOf(name).inputs.filter((input) => OUT.includes(input));
      expect({ name, found }).toEqual({ name, found: [] });
    }
    expect(workerWithFlow?.inputs).toEqual(expect.arrayContaining(OUT));
  });
});

describe('the DocumentClient (lib-dynamodb) at cold start: only where jobs get one', () => {
  const LIB_DYNAMODB = '@aws-sdk/lib-dynamodb';

  it('neither the sweeper nor the admin function imports lib-dynamodb, statically or dynamically', () => {
    for (const name of ['sweeper', 'admin'] as const) {
      const { staticPackages, dynamicPackages } = pathOf(name);
      expect({ name, imports: [...staticPackages, ...dynamicPackages] }).toEqual({
        name,
        imports: expect.not.arrayContaining([LIB_DYNAMODB]),
      });
    }
  });

  it('the worker still imports it at module scope: its jobs get a DocumentClient (ctx.client)', () => {
    expect(pathOf('worker').staticPackages).toContain(LIB_DYNAMODB);
  });
});

describe('sweeper and admin cold start', () => {
  it('neither imports Secrets Manager at module scope', () => {
    for (const name of ['sweeper', 'admin'] as const) {
      expect(pathOf(name).staticPackages).not.toContain('@aws-sdk/client-secrets-manager');
    }
  });

  it('the sweeper imports only the DynamoDB SDK at module scope; SQS loads for its first wake-up', () => {
    const sweeper = pathOf('sweeper');
    expect(sweeper.staticPackages.sort()).toEqual(['@aws-sdk/client-dynamodb', '@aws-sdk/util-dynamodb']);
    expect(sweeper.dynamicPackages).toContain('@aws-sdk/client-sqs');
  });

  it('the admin function imports only the DynamoDB SDK at module scope; SQS loads for the first route that needs it', () => {
    const admin = pathOf('admin');
    expect(admin.staticPackages.sort()).toEqual(['@aws-sdk/client-dynamodb', '@aws-sdk/util-dynamodb']);
    expect(admin.dynamicPackages).toContain('@aws-sdk/client-sqs');
  });
});

describe('per-function facets: what each bundle may hold (issue #46)', () => {
  /** Modules (a path, or a folder ending in /) a function's bundle must not hold: another function's facets. */
  const MAY_NOT_HOLD: Record<keyof typeof ENTRIES, readonly string[]> = {
    worker: [
      'lib/store/operator/operator-store.ts',
      'lib/store/operator/operator-transitions.ts',
      'lib/store/operator/read-back.ts',
      'lib/store/operator/stamped-cancel.ts',
      'lib/store/parked/parked-reads.ts',
      'lib/store/parked/tenant-partitions.ts',
      'lib/store/records/audit.ts',
      'lib/store/records/audit-migration.ts',
      'lib/store/approvals/approvals.ts',
      'lib/store/maintenance/',
      'lib/store/deadlines/',
      'lib/store/review/',
      'lib/store/shadow/',
      'lib/sweeper/',
    ],
    sweeper: [
      'lib/store/operator/operator-store.ts',
      'lib/store/operator/stamped-cancel.ts',
      'lib/store/parked/tenant-partitions.ts',
      'lib/store/records/audit.ts',
      'lib/store/records/audit-migration.ts',
      'lib/store/approvals/approvals.ts',
      'lib/store/shadow/shadow-claims.ts',
      'lib/store/review/',
      // Erasure is the admin's (OperatorStore's erasure facet): the sweeper never runs it.
      'lib/store/payloads/payload-erasure.ts',
      'lib/store/records/quarantine-erasure.ts',
      'lib/worker/',
      'lib/fenced/',
    ],
    // The audit log's one-off migration writes where every function's role is denied: the CLI's alone.
    admin: ['lib/worker/', 'lib/sweeper/', 'lib/store/records/audit-migration.ts'],
  };

  const held = (name: keyof typeof ENTRIES, banned: string) =>
    pathOf(name).inputs.filter((input) => (banned.endsWith('/') ? input.startsWith(banned) : input === banned));

  it('the worker bundles the store core it runs (the check sees the store at all)', () => {
    expect(pathOf('worker').inputs).toEqual(
      expect.arrayContaining(['lib/store/work-item-store.ts', 'lib/store/unrunnable/unrunnable.ts']),
    );
  });

  it.each(Object.keys(ENTRIES) as (keyof typeof ENTRIES)[])(
    'the %s bundle holds none of the facets it does not run',
    (name) => {
      const found = MAY_NOT_HOLD[name].flatMap((banned) => held(name, banned));
      expect({ name, found }).toEqual({ name, found: [] });
    },
  );
});

describe('pay for what you use (issue #46 item 2): what a deployment does not use costs next to nothing at import', () => {
  /**
   * No bundle reaches a bundled module through `import()`: esbuild's one-file bundle wraps such a module and
   * everything it imports (zod, Powertools, the store) in lazy initialisers, which cost the worker more at import than
   * the modules they deferred (lib/config.ts; test/bench/README.md "Cold start"). Capabilities a deployment may not
   * use (successors' completion, the approval gate, the tracing adapter) are imported statically with declarations
   * only at module scope; what the construct knows is off is defined out (the fault layer, flow control).
   */
  it.each([
    ...Object.keys(ENTRIES).map((name) => [name, () => pathOf(name as keyof typeof ENTRIES)] as const),
    ['worker with faultInjection', () => workerWithFaults] as const,
    ['worker with flowControl', () => workerWithFlow] as const,
  ])('the %s bundle reaches no bundled module through import()', (_name, path) => {
    const found = path();
    if (!found) throw new Error('not bundled');
    expect(found.bundledDynamicImports).toEqual([]);
  });

  it('the worker bundles the successors, approval and tracing code its jobs may call', () => {
    expect(pathOf('worker').staticInputs).toEqual(
      expect.arrayContaining([
        'lib/worker/successor-completion.ts',
        'lib/messaging/wake.ts',
        'lib/worker/approval-gate.ts',
        'lib/tracing/open-telemetry.ts',
      ]),
    );
  });

  /** Capabilities the worker never runs: their own functions or consumers bundle them, never the worker's bundle. */
  const NEVER_IN_THE_WORKER = {
    shadow: ['lib/shadow/', 'lib/store/shadow/'],
    schedules: ['lib/messaging/schedule', 'lib/lambda/schedule-tick-handler.ts'],
    'approval decisions': ['lib/store/approvals/approvals.ts', 'lib/store/approvals/approval-requests.ts'],
  } as const;

  it.each(Object.entries(NEVER_IN_THE_WORKER))('the worker bundle holds nothing of %s', (_capability, prefixes) => {
    const found = pathOf('worker').inputs.filter((file) => prefixes.some((prefix) => file.startsWith(prefix)));
    expect(found).toEqual([]);
  });

  it("the worker's init still evaluates its core (the check reads the init path at all)", () => {
    expect(pathOf('worker').staticInputs).toEqual(
      expect.arrayContaining([
        'lib/worker/worker-runtime.ts',
        'lib/store/work-item-store.ts',
        'lib/worker/successors.ts',
      ]),
    );
  });
});
