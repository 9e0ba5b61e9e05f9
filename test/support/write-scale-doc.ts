import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli-runner.js';
import { applyBlocks } from './scale-doc.js';

/** The scale model document whose generated tables come from the capacity model. */
const SCALE_DOC_FILE = join(ROOT, 'docs', 'SCALE.md');

// `npm run scale-doc`: rewrites the generated tables (test/unit/docs/scale-doc.test.ts fails until it is run).
if (process.argv[1]?.endsWith('write-scale-doc.ts')) {
  writeFileSync(SCALE_DOC_FILE, applyBlocks(readFileSync(SCALE_DOC_FILE, 'utf8')));
  console.log(`wrote ${SCALE_DOC_FILE}`);
}

export { SCALE_DOC_FILE };
