import type { Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleCompositionSection } from '../../bench/report/bundle-composition-section.js';
import { compositionOf, partOf } from '../../bench/support/bundle-composition.js';

type Edges = Record<string, { path: string; kind: 'import-statement' | 'dynamic-import' }[]>;

/**
 * A metafile of one bundled file holding `inputs` (path → bytes in the output), `total` bytes in all; `edges` are
 * the sources' imports (default: the entry imports every input with an import statement).
 */
function metafile(inputs: Record<string, number>, total: number, edges?: Edges): Metafile {
  const graph: Edges = edges ?? {
    'entry.ts': Object.keys(inputs).map((path) => ({ path, kind: 'import-statement' as const })),
  };
  return {
    inputs: Object.fromEntries(
      Object.entries(graph).map(([file, imports]) => [
        file,
        { bytes: 1, imports: imports.map((imp) => ({ ...imp, original: imp.path })) },
      ]),
    ),
    outputs: {
      'out.mjs': {
        bytes: total,
        inputs: Object.fromEntries(Object.entries(inputs).map(([path, bytesInOutput]) => [path, { bytesInOutput }])),
        imports: [],
        exports: [],
        entryPoint: 'entry.ts',
      },
      'out.mjs.map': { bytes: 10, inputs: {}, imports: [], exports: [] },
    },
  };
}

describe('figure 5c: what a bundle holds', () => {
  it('names the innermost package, the lib/ folder, the root files and other top folders', () => {
    expect(partOf('node_modules/zod/v4/core/schemas.js')).toBe('zod');
    expect(partOf('node_modules/@aws-lambda-powertools/logger/lib/esm/Logger.js')).toBe(
      '@aws-lambda-powertools/logger',
    );
    expect(
      partOf('node_modules/@aws-lambda-powertools/logger/node_modules/@aws-lambda-powertools/commons/lib/esm/x.js'),
    ).toBe('@aws-lambda-powertools/commons');
    expect(partOf('lib/store/work-item-store.ts')).toBe('lib/store/');
    expect(partOf('lib/errors.ts')).toBe('lib/ (root files)');
    expect(partOf('examples/jobs/refund-settlement.ts')).toBe('examples/');
    expect(partOf('<runtime>')).toBe('<runtime>');
  });

  it('sums bytes by part, largest first, and keeps the bundle total (banner and helpers included)', () => {
    const composition = compositionOf(
      'worker',
      metafile(
        { 'lib/store/a.ts': 300, 'lib/store/b.ts': 200, 'node_modules/zod/v4/core/core.js': 400, 'lib/rules.ts': 0 },
        1_000,
      ),
    );

    expect(composition).toEqual({
      name: 'worker',
      totalBytes: 1_000,
      parts: [
        { part: 'lib/store/', bytes: 500, firstUseBytes: 0 },
        { part: 'zod', bytes: 400, firstUseBytes: 0 },
      ],
    });
  });

  it('counts as first use the bytes module init does not evaluate: reached only by import(), not through a file the bundle left out', () => {
    const inputs = { 'entry.ts': 10, 'lib/worker/core.ts': 100, 'lib/worker/gate.ts': 40, 'lib/store/records.ts': 30 };
    const composition = compositionOf(
      'worker',
      metafile(inputs, 1_000, {
        'entry.ts': [
          { path: 'lib/worker/core.ts', kind: 'import-statement' },
          { path: 'lib/store/index.ts', kind: 'import-statement' },
        ],
        'lib/worker/core.ts': [{ path: 'lib/worker/gate.ts', kind: 'dynamic-import' }],
        // Left out of the output (a re-exporting index): what it imports is still bundled and evaluated at init.
        'lib/store/index.ts': [{ path: 'lib/store/operator.ts', kind: 'import-statement' }],
        'lib/store/operator.ts': [{ path: 'lib/store/records.ts', kind: 'import-statement' }],
        'lib/worker/gate.ts': [{ path: 'lib/store/records.ts', kind: 'import-statement' }],
      }),
    );

    expect(composition.parts).toEqual([
      { part: 'lib/worker/', bytes: 140, firstUseBytes: 40 },
      { part: 'lib/store/', bytes: 30, firstUseBytes: 0 },
      { part: 'entry.ts', bytes: 10, firstUseBytes: 0 },
    ]);
  });

  it('refuses a build with more than one bundled file', () => {
    const twoFiles = metafile({}, 1);
    twoFiles.outputs['chunk.mjs'] = { bytes: 1, inputs: {}, imports: [], exports: [] };

    expect(() => compositionOf('worker', twoFiles)).toThrow(/expected one bundled file, got 2/);
  });

  it('renders both bundles side by side, small parts in the rest, and nothing when one is missing', () => {
    const worker = compositionOf('worker', metafile({ 'lib/store/a.ts': 600, 'node_modules/tiny/x.js': 5 }, 1_000));
    const peer = compositionOf('peer', metafile({ 'node_modules/@aws-lambda-powertools/batch/x.js': 400 }, 500));
    const section = bundleCompositionSection([worker, peer]);

    expect(section).toContain('| lib/store/ | 0.6 kB (60 %) | – | – |');
    expect(section).toContain('| @aws-lambda-powertools/batch | – | – | 0.4 kB (80 %) |');
    expect(section).toContain('| the rest | 0.4 kB (40 %) | – | 0.1 kB (20 %) |');
    expect(section).not.toContain('tiny');
    expect(bundleCompositionSection([worker])).toBe('');
  });

  it("shows the worker's bytes loaded on first use, by part and in all", () => {
    const worker = compositionOf(
      'worker',
      metafile({ 'lib/worker/core.ts': 500, 'lib/worker/gate.ts': 100 }, 1_000, {
        'entry.ts': [{ path: 'lib/worker/core.ts', kind: 'import-statement' }],
        'lib/worker/core.ts': [{ path: 'lib/worker/gate.ts', kind: 'dynamic-import' }],
      }),
    );
    const peer = compositionOf('peer', metafile({ 'node_modules/@aws-lambda-powertools/batch/x.js': 400 }, 500));
    const section = bundleCompositionSection([worker, peer]);

    expect(section).toContain('| part | worker | worker: on first use | peer |');
    expect(section).toContain('| lib/worker/ | 0.6 kB (60 %) | 0.1 kB | – |');
    expect(section).toContain('| total | 1.0 kB | 0.1 kB | 0.5 kB |');
  });
});
