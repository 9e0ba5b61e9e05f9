import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How the user in `cwd` starts the local stack: `npm start` in this repository (its package.json names
 * leasefence), `npx leasefence start` in any other project. An unreadable package.json is another project.
 */
function localStartCommand(cwd: string = process.cwd()): string {
  try {
    const manifest = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as { name?: unknown };
    return manifest.name === 'leasefence' ? 'npm start' : 'npx leasefence start';
  } catch {
    return 'npx leasefence start';
  }
}

export { localStartCommand };
