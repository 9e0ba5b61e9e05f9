/**
 * How a person runs this CLI where it runs now, for the commands it suggests: `npx leasefence` from the installed
 * package; `npm run leasefence --` in a checkout running its TypeScript source, where nothing is built (so
 * `npx leasefence` would find no `dist/`).
 */
const CLI_INVOCATION = import.meta.url.endsWith('.ts') ? 'npm run leasefence --' : 'npx leasefence';

export { CLI_INVOCATION };
