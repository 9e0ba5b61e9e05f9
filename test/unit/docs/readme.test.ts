import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const quickstart = readFileSync(new URL('../../readme/quickstart.ts', import.meta.url), 'utf8');
const classC = readFileSync(new URL('../../readme/class-c.ts', import.meta.url), 'utf8');

/** Text between two marker lines (exclusive). */
function between(text: string, begin: string, end: string): string {
  const start = text.indexOf(begin);
  const stop = text.indexOf(end, start);
  if (start < 0 || stop < 0) throw new Error(`markers ${begin} / ${end} not found`);
  return text.slice(text.indexOf('\n', start) + 1, stop);
}

describe('README', () => {
  it('shows the two newcomer commands in its first lines', () => {
    const head = readme.split('\n').slice(0, 8).join('\n');
    expect(head).toContain('npm start');
    expect(head).toContain('npm test');
  });

  it('shows the quick-start file verbatim, so the typecheck compiles the README example', () => {
    const shown = between(readme, '<!-- QUICKSTART:BEGIN', '<!-- QUICKSTART:END')
      .replace(/^```ts\n/, '')
      .replace(/```\n$/, '');
    const compiled = between(quickstart, '// QUICKSTART:BEGIN', '// QUICKSTART:END');
    expect(shown.trim()).toBe(compiled.trim());
  });

  it('shows the class C example verbatim (the typecheck compiles it; the CLI tests rate it GO)', () => {
    const shown = between(readme, '<!-- CLASS_C:BEGIN', '<!-- CLASS_C:END')
      .replace(/^```ts\n/, '')
      .replace(/```\n$/, '');
    const compiled = between(classC, '// CLASS_C:BEGIN', '// CLASS_C:END');
    expect(shown.trim()).toBe(compiled.trim());
  });

  it('has a section on reading a NO-GO, naming the remedy line', () => {
    const section = between(readme, '### Reading a NO-GO', '## States');
    expect(section).toContain('remedy:');
  });
});
