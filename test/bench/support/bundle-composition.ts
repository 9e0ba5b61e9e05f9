import { build, type Metafile } from 'esbuild';
import { constructBundling } from './construct-bundling.js';

/** One part of a bundle: a package, a folder of lib/, or the other sources, and the minified bytes it adds. */
interface BundlePart {
  part: string;
  bytes: number;
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

/** Sums an esbuild metafile's one output by part (partOf). Throws unless the build wrote exactly one file. */
function compositionOf(name: string, metafile: Metafile): BundleComposition {
  const outputs = Object.entries(metafile.outputs).filter(([file]) => !file.endsWith('.map'));
  if (outputs.length !== 1) throw new Error(`${name}: expected one bundled file, got ${outputs.length}`);
  const [, output] = outputs[0] as [string, Metafile['outputs'][string]];
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const part = partOf(input);
    bytes.set(part, (bytes.get(part) ?? 0) + bytesInOutput);
  }
  const parts = [...bytes].map(([part, partBytes]) => ({ part, bytes: partBytes })).filter((part) => part.bytes > 0);
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

export { type BundleComposition, type BundlePart, compositionOf, measureComposition, partOf };
