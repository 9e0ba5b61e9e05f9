import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { leasefenceError } from '../../lib/errors.js';

/** Folder of the page's own modules and stylesheet (copied next to the compiled server by the build). */
const UI_DIR = fileURLToPath(new URL('./ui/', import.meta.url));

/** The UI libraries, served from node_modules as ES modules: nothing is fetched from the network. */
const VENDOR_FILES: Readonly<Record<string, { pkg: string; file: string }>> = {
  'preact.mjs': { pkg: 'preact', file: 'dist/preact.mjs' },
  'hooks.mjs': { pkg: 'preact', file: 'hooks/dist/hooks.mjs' },
  'htm.mjs': { pkg: 'htm', file: 'dist/htm.mjs' },
};

/** The import map the page uses, so the modules keep their bare `preact` imports. */
const IMPORT_MAP = JSON.stringify({
  imports: { preact: '/vendor/preact.mjs', 'preact/hooks': '/vendor/hooks.mjs', htm: '/vendor/htm.mjs' },
});

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The UI libraries (dependencies of the package) are missing, a broken install: the console cannot start. */
class ConsoleUnavailableError extends leasefenceError('console.unavailable') {
  constructor(message: string) {
    super(message);
  }
}

/** A static file: its bytes and content type. */
interface Asset {
  body: Buffer;
  type: string;
}

/** The folder of an installed package (walks up from its resolved entry to the package.json naming it). */
function packageRoot(pkg: string): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(pkg));
  while (!dir.endsWith(`node_modules/${pkg}`) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * Reads every asset once at start-up (a missing UI library ▶ Error naming the packages to install), so a request
 * can only ever get one of these files: there is no path from a URL to the file system.
 */
async function loadAssets(uiFiles: readonly string[]): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  for (const [name, { pkg, file }] of Object.entries(VENDOR_FILES)) {
    let body: Buffer;
    try {
      body = await readFile(join(packageRoot(pkg), file));
    } catch {
      throw new ConsoleUnavailableError(
        `the console's UI library ${pkg} is missing: it comes with leasefence, so reinstall it (npm install leasefence)`,
      );
    }
    assets.set(`/vendor/${name}`, { body, type: CONTENT_TYPES['.mjs'] as string });
  }
  for (const file of uiFiles) {
    const type = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
    assets.set(`/ui/${file}`, { body: await readFile(join(UI_DIR, file)), type });
  }
  return assets;
}

export { type Asset, ConsoleUnavailableError, IMPORT_MAP, loadAssets, UI_DIR };
