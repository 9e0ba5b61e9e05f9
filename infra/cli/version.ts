import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version in leasefence's own package.json: the nearest one above this file that names leasefence (the
 * checkout's root, or node_modules/leasefence when installed). None found ▶ Error (a broken install).
 */
async function packageVersion(): Promise<string> {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const manifest = await readFile(join(dir, 'package.json'), 'utf8').then(
      (text) => JSON.parse(text) as { name?: unknown; version?: unknown },
      () => undefined,
    );
    if (manifest?.name === 'leasefence' && typeof manifest.version === 'string') return manifest.version;
    if (dirname(dir) === dir) throw new Error('leasefence: its package.json was not found above the CLI');
  }
}

export { packageVersion };
