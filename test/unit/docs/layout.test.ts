import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The folders of code a newcomer looks for at the top of the repository. */
const TOP_LEVEL_FOLDERS = ['lib', 'functions', 'examples', 'infra', 'test'];

/** One row of the README's layout table: the folders it is about, and what it says of them. */
interface LayoutRow {
  folders: string[];
  text: string;
}

/** The rows of the table under `## Layout` (header and separator rows left out). */
function layoutRows(markdown: string): LayoutRow[] {
  const start = markdown.indexOf('\n## Layout\n');
  if (start < 0) throw new Error('README has no "## Layout" section');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-\s|]+\|$/.test(line))
    .map((line) => line.split('|').slice(1, -1))
    .filter((cells) => cells[0]?.trim() !== 'folder')
    .map(([first = '', ...rest]) => ({ folders: codeSpans(first), text: rest.join('|') }));
}

/** The `code` spans of a cell. */
function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
}

/** A code span that names a folder (`x/`) or a file (`x.ts`), rather than an export or a package subpath. */
function isPath(span: string): boolean {
  return /^[\w./-]+(\/|\.(ts|js|cjs|mjs|json|md))$/.test(span);
}

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

const rows = layoutRows(readme);
const namedFolders = rows.flatMap((row) => row.folders).map((folder) => folder.replace(/\/$/, ''));

describe('the README layout table matches the tree', () => {
  it('has rows, each naming at least one folder', () => {
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) expect(row.folders, row.text).not.toEqual([]);
  });

  it('names only folders that exist', () => {
    const missing = namedFolders.filter((folder) => !isDirectory(join(root, folder)));
    expect(missing).toEqual([]);
  });

  it('names only files and subfolders that exist in the folder of their row', () => {
    const missing: string[] = [];
    for (const row of rows) {
      const paths = codeSpans(row.text).filter(isPath);
      if (paths.length === 0) continue;
      // A row about several folders names its files by their place in the first one; a row may also point at
      // another top-level folder (`test/` mirrors `lib/`).
      const bases = [join(root, row.folders[0] as string), root];
      for (const path of paths) {
        const exists = (base: string) =>
          path.endsWith('/') ? isDirectory(join(base, path)) : existsSync(join(base, path));
        if (!bases.some(exists)) missing.push(`${row.folders[0]} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names every top-level folder of code', () => {
    for (const folder of TOP_LEVEL_FOLDERS) expect(isDirectory(join(root, folder)), folder).toBe(true);
    expect(TOP_LEVEL_FOLDERS.filter((folder) => !namedFolders.includes(folder))).toEqual([]);
  });

  it('names every folder directly under lib/', () => {
    const libFolders = readdirSync(join(root, 'lib'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `lib/${entry.name}`);
    expect(libFolders.length).toBeGreaterThan(0);
    expect(libFolders.filter((folder) => !namedFolders.includes(folder))).toEqual([]);
  });
});
