/**
 * Layering rules, checked by `npm test` (`npm run deps`). The architecture in one page:
 * - lib/ is the library: it imports nothing outside lib/;
 * - only lib/store/ talks to the jobs and payloads tables (the store is their driver), and the rest of the code
 *   reaches it through its one door, lib/store/index.ts;
 * - shipped code (lib/, functions/, infra/ but the project's own app) never imports examples/;
 * - no import cycles anywhere.
 */
/** Folders whose code is shipped in the package. */
const SHIPPED = '^(lib|functions|infra/(construct|cli|console|local|testing))/';
/**
 * Code that may import the AWS SDK's DynamoDB clients and commands (type-only imports are free): the store (jobs
 * and payloads tables), fenced writes (the user's record tables), the client factory, the tools that create or
 * describe tables, and the conformance harness's fingerprint of the user's own target tables. Everything else,
 * the harness's privacy scan and the transaction probe included, reaches the jobs and payloads tables through
 * store methods.
 */
const DYNAMODB_ITEM_ACCESS_ALLOWED = [
  '^lib/store/',
  '^lib/fenced/',
  '^lib/(aws-clients|document-client)\\.ts$',
  '^infra/testing/(conformance-engine|target-state)\\.ts$',
  '^infra/local/resources\\.ts$',
  '^infra/cli/commands/raise-fences\\.ts$',
  '^examples/',
  '^test/',
];
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle means a type or a rule sits in the wrong file.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-is-a-leaf',
      severity: 'error',
      comment: 'lib/ is what users install: it imports nothing from infra/, functions/, examples/ or test/.',
      from: { path: '^lib/' },
      to: { path: '^(infra|functions|examples|test)/' },
    },
    {
      name: 'shipped-code-never-imports-examples',
      severity: 'error',
      comment: 'The CLI and the local stack load the example jobs and the demo by path, as they load a user module.',
      from: { path: SHIPPED },
      to: { path: '^examples/' },
    },
    {
      name: 'functions-are-thin',
      severity: 'error',
      comment: 'functions/ wires lib/ to Lambda events: it imports only lib/.',
      from: { path: '^functions/' },
      to: { path: '^(infra|examples|test)/' },
    },
    {
      name: 'the-store-has-one-door',
      severity: 'error',
      comment:
        'Outside lib/store/, code imports the store through its public face (lib/store/index.ts), never a room inside it; tests may open a room to test it.',
      from: { pathNot: '^(lib/store/|test/)' },
      to: { path: '^lib/store/', pathNot: '^lib/store/index\\.ts$' },
    },
    {
      name: 'only-the-store-talks-to-the-tables',
      severity: 'error',
      comment:
        'Item access (Get/Put/Update/Query/Scan) to the jobs and payloads tables goes through lib/store/ methods.',
      from: { pathNot: DYNAMODB_ITEM_ACCESS_ALLOWED },
      to: { path: 'node_modules/@aws-sdk/(client-dynamodb|lib-dynamodb)/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '^(node_modules|dist|cdk\\.out|\\.local)/' },
  },
};
