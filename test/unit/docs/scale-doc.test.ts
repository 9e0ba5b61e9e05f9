import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AWS_LIMITS, LIMITS_READ_ON } from '../../../infra/construct/capacity-limits.js';
import { applyBlocks, renderBlocks } from '../../support/scale-doc.js';
import { SCALE_DOC_FILE } from '../../support/write-scale-doc.js';

const doc = readFileSync(SCALE_DOC_FILE, 'utf8');
/** Rendered once: the planner's searches take seconds. */
const blocks = renderBlocks();

describe('docs/SCALE.md against the capacity model (infra/construct/capacity-*.ts)', () => {
  it('holds every generated table as the model renders it today (`npm run scale-doc` rewrites them)', () => {
    // Each block between its markers must equal the model's rendering: a changed limit or unit count fails here.
    expect(applyBlocks(doc, blocks)).toBe(doc);
  });

  it('has a marker pair for every block the model renders, so none is silently left out', () => {
    for (const name of Object.keys(blocks)) {
      expect(doc, name).toContain(`<!-- model:${name} -->`);
      expect(doc, name).toContain(`<!-- /model:${name} -->`);
    }
  });

  it('cites every limit with its page and the day it was read', () => {
    expect(doc).toContain(`source (read ${LIMITS_READ_ON})`);
    for (const limit of Object.values(AWS_LIMITS)) {
      for (const source of limit.sources) expect(doc).toContain(source.url);
    }
  });

  it('notices a changed number: a model that renders differently no longer matches the document', () => {
    const changed = { ...blocks, numbers: blocks.numbers.replace('889', '894') };
    expect(changed.numbers).not.toBe(blocks.numbers);
    expect(applyBlocks(doc, changed)).not.toBe(doc);
  });
});
