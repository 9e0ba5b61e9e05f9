import { build, type Metafile } from 'esbuild';
import { constructBundling } from './construct-bundling.js';

/** One part of a bundle: a package, a folder of lib/, or the other sources, and the minified bytes it adds. */
interface BundlePart {
  part: string;
  bytes: number;
  /**
   * Of `bytes`, those module init does not evaluate: bundled, but reached only through `import()` (none since issue
   * #46's last round: lib/config.ts says why). Absent when the metafile names no entry point.
   */
  firstUseBytes?: number;
}

/** What a bundle holds, by part, largest first, and the bundle's size (the banner and esbuild's helpers included). */
interface BundleComposition {
  name: string;
  totalBytes: number;
  parts: BundlePart[];
}

/**
 * The part a bundled input belongs to: its npm package (`@scope/name` or `name`; a package nested under another
 * counts as itself), `lib/<folder>/` for the library's concepts, `lib/ (root files)`, or its top folder.
 */
function partOf(input: string): string {
  const packages = [...input.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
  const innermost = packages.at(-1)?.[1];
  if (innermost) return innermost;
  const [top, second] = input.split('/');
  if (top === 'lib') return second?.endsWith('.ts') ? 'lib/ (root files)' : `lib/${second}/`;
  return top && second !== undefined ? `${top}/` : input;
}

/**
 * The bundled inputs module init evaluates: reached from `entry` through import statements, never through
 * `import()` (esbuild wraps those and evaluates them on the first call). It follows import statements through files
 * the bundle left out too (a re-exporting index esbuild drops still leads to what it re-exports, which the bundle's
 * top level evaluates). Errs towards "evaluated": it follows every import statement, used or not.
 */
function initInputsOf(inputs: Metafile['inputs'], entry: string, bundled: ReadonlySet<string>): string[] {
  const seen = new Set<string>([entry]);
  const next = [entry];
  for (let file = next.pop(); file !== undefined; file = next.pop()) {
    for (const imp of inputs[file]?.imports ?? []) {
      if (imp.kind !== 'import-statement' || imp.external || seen.has(imp.path)) continue;
      seen.add(imp.path);
      next.push(imp.path);
    }
  }
  return [...seen].filter((file) => bundled.has(file));
}

/** Sums an esbuild metafile's one output by part (partOf). Throws unless the build wrote exactly one file. */
function compositionOf(name: string, metafile: Metafile): BundleComposition {
  const outputs = Object.entries(metafile.outputs).filter(([file]) => !file.endsWith('.map'));
  if (outputs.length !== 1) throw new Error(`${name}: expected one bundled file, got ${outputs.length}`);
  const [, output] = outputs[0] as [string, Metafile['outputs'][string]];
  const atInit =
    output.entryPoint === undefined
      ? undefined
      : new Set(initInputsOf(metafile.inputs, output.entryPoint, new Set(Object.keys(output.inputs))));
  const bytes = new Map<string, { bytes: number; firstUseBytes: number }>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const part = bytes.get(partOf(input)) ?? { bytes: 0, firstUseBytes: 0 };
    part.bytes += bytesInOutput;
    if (atInit && !atInit.has(input)) part.firstUseBytes += bytesInOutput;
    bytes.set(partOf(input), part);
  }
  const parts = [...bytes]
    .map(([part, sums]) => ({ part, bytes: sums.bytes, ...(atInit ? { firstUseBytes: sums.firstUseBytes } : {}) }))
    .filter((part) => part.bytes > 0);
  parts.sort((a, b) => b.bytes - a.bytes || a.part.localeCompare(b.part));
  return { name, totalBytes: output.bytes, parts };
}

/** Bundles `entry` with the construct's settings (the SDK external, its default) in memory and returns what it holds. */
async function measureComposition(name: string, entry: string): Promise<BundleComposition> {
  const result = await build({
    ...constructBundling(false),
    entryPoints: [entry],
    // The name the construct's bundles have (index.mjs): the source-map comment at its end names it, so the sizes match.
    outfile: 'index.mjs',
    write: false,
    metafile: true,
  });
  return compositionOf(name, result.metafile);
}

export { type BundleComposition, type BundlePart, compositionOf, initInputsOf, measureComposition, partOf };
