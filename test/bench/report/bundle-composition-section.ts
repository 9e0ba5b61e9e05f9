import type { BundleComposition } from '../support/bundle-composition.js';
import { kb, num, table } from './format.js';

/** Parts under this share of the worker's bundle (and of the peer's) are summed into one row. */
const SMALL_SHARE = 0.01;

/**
 * Figure 5's third table: what the project's worker bundle and the peer's hold, by package or lib/ folder (esbuild's
 * metafile, the construct's settings), so the bundle target's gap is located, not guessed.
 */
function bundleCompositionSection(compositions: readonly BundleComposition[] | undefined): string {
  const [worker, peer] = compositions ?? [];
  if (!worker || !peer) return '';
  const bytesIn = (composition: BundleComposition, part: string) =>
    composition.parts.find((candidate) => candidate.part === part)?.bytes ?? 0;
  const large = (composition: BundleComposition, part: string) =>
    bytesIn(composition, part) >= SMALL_SHARE * composition.totalBytes;
  const parts = [...new Set([...worker.parts, ...peer.parts].map((part) => part.part))]
    .filter((part) => large(worker, part) || large(peer, part))
    .sort((a, b) => bytesIn(worker, b) - bytesIn(worker, a) || bytesIn(peer, b) - bytesIn(peer, a));
  const cell = (composition: BundleComposition, bytes: number) =>
    bytes === 0 ? '–' : `${kb(bytes)} (${num((100 * bytes) / composition.totalBytes)} %)`;
  const rest = (composition: BundleComposition) =>
    composition.totalBytes - parts.reduce((sum, part) => sum + bytesIn(composition, part), 0);
  const firstUseIn = (part: string) => worker.parts.find((candidate) => candidate.part === part)?.firstUseBytes ?? 0;
  const firstUse = (bytes: number) => (bytes === 0 ? '–' : kb(bytes));
  const firstUseTotal = worker.parts.reduce((sum, part) => sum + (part.firstUseBytes ?? 0), 0);
  const listedFirstUse = parts.reduce((sum, part) => sum + firstUseIn(part), 0);
  return [
    '### 5c. What the bundles hold',
    '',
    `Minified bytes by npm package or lib/ folder, from esbuild's metafile of the project's worker (${worker.name}: the example jobs under \`createSqsWorkerHandler\`) and of the peer, built with the construct's settings, the AWS SDK external. Parts under ${num(100 * SMALL_SHARE)} % of both bundles are summed in the last row, with the banner and esbuild's helpers. "On first use": the ${worker.name}'s bytes its module init does not evaluate, reached only through \`import()\`: none, since no bundled module is reached that way (esbuild would wrap it and all it imports in lazy initialisers, which cost more at import than they deferred: lib/config.ts).`,
    '',
    table(
      ['part', worker.name, `${worker.name}: on first use`, peer.name],
      [
        ...parts.map((part) => [
          part,
          cell(worker, bytesIn(worker, part)),
          firstUse(firstUseIn(part)),
          cell(peer, bytesIn(peer, part)),
        ]),
        ['the rest', cell(worker, rest(worker)), firstUse(firstUseTotal - listedFirstUse), cell(peer, rest(peer))],
        ['total', kb(worker.totalBytes), firstUse(firstUseTotal), kb(peer.totalBytes)],
      ],
    ),
  ].join('\n');
}

export { bundleCompositionSection };
