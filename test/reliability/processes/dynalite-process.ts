import { startDynalite } from '../../../infra/local/engines.js';

// The DynamoDB engine of the database-failure tests as a process of its own, so a test can SIGKILL it and
// start it again on the same data (LevelDB in LF_DYNALITE_PATH) and the same port (LF_DYNALITE_PORT).

const path = process.env.LF_DYNALITE_PATH;
const port = Number(process.env.LF_DYNALITE_PORT ?? '0');
if (!path) throw new Error('LF_DYNALITE_PATH is required: this engine exists to persist on disk');
try {
  const engine = await startDynalite({ path, port });
  process.send?.({ type: 'ready', endpoint: engine.endpoint });
} catch (error) {
  process.send?.({ type: 'failed', code: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
  process.exit(1);
}
// The test process is the only reason to live: without it, exit instead of becoming an orphan.
process.on('disconnect', () => process.exit(0));
