import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { buildFencedRecordWrite, parseRecordWrite } from '../../../lib/fenced/record-requests.js';
import { FencedRecords } from '../../../lib/fenced/records.js';
import { sendConditional } from '../../../lib/store/driver/conditional-write.js';
import { claimFixture } from '../../support/claim-fixture.js';
import type { BenchEngine } from '../support/bench-engine.js';
import { median, nowMs } from '../support/stats.js';

/** The side-effect write of figure 2 in four shapes, one request each. */
type WriteShape =
  | 'plain PutItem (peer)'
  | 'fenced write (leasefence)'
  | 'fenced write, ReturnValues NONE'
  | 'fenced put (records.put)';

/** Median over blocks of the latency and process CPU of one write of that shape, sent one at a time. */
interface WriteShapeRow {
  shape: WriteShape;
  latencyMs: number;
  cpuMs: number;
}

/**
 * Figure 2b: where the side-effect write's cost goes. Sends single writes of each shape to fresh keys, one at a
 * time, in interleaved blocks: the peer's put, leasefence's fenced update, the same request without the returned
 * item (is the returned record the cost?), and a fenced whole-record put (is the update expression the cost?).
 */
async function measureWriteShapes(
  engine: BenchEngine,
  options: { blocks: number; perBlock: number },
): Promise<WriteShapeRow[]> {
  const tableName = await engine.createKeyedTable('write-shapes', 'pk');
  const client = engine.documentClient();
  const raw = engine.rawClient();
  const claim = claimFixture({ fence: 1 });
  const records = new FencedRecords({ client, claim });
  const set = { writtenBy: 'bench', amountCents: 1234 };
  let next = 0;
  const shapes: Record<WriteShape, () => Promise<unknown>> = {
    'plain PutItem (peer)': () =>
      raw.send(
        new PutItemCommand({
          TableName: tableName,
          Item: { pk: { S: `put-${next++}` }, writtenBy: { S: 'bench' }, amountCents: { N: '1234' } },
        }),
      ),
    'fenced write (leasefence)': () => records.write({ tableName, key: { pk: `fenced-${next++}` } }, { set }),
    'fenced write, ReturnValues NONE': async () => {
      const parsed = parseRecordWrite(
        { kind: 'update', ref: { tableName, key: { pk: `none-${next++}` } }, change: { set } },
        {
          kind: 'advance',
        },
      );
      const { request } = buildFencedRecordWrite(claim, parsed.write, parsed.rule);
      const outcome = await sendConditional(client, { ...request, ReturnValues: 'NONE' });
      if (!outcome.ok) throw new Error('fenced write without returned item was refused');
    },
    'fenced put (records.put)': () => records.put({ tableName, key: { pk: `put-fenced-${next++}` } }, set),
  };
  const samples = new Map<WriteShape, Array<{ latencyMs: number; cpuMs: number }>>();
  const names = Object.keys(shapes) as WriteShape[];
  for (let block = -1; block < options.blocks; block += 1) {
    const order = block % 2 === 0 ? names : [...names].reverse();
    for (const shape of order) {
      const cpuBefore = process.cpuUsage();
      const started = nowMs();
      for (let index = 0; index < options.perBlock; index += 1) await shapes[shape]();
      const cpu = process.cpuUsage(cpuBefore);
      // Block -1 is the warm-up of every shape.
      if (block < 0) continue;
      const list = samples.get(shape) ?? [];
      list.push({
        latencyMs: (nowMs() - started) / options.perBlock,
        cpuMs: (cpu.user + cpu.system) / 1000 / options.perBlock,
      });
      samples.set(shape, list);
    }
  }
  return names.map((shape) => ({
    shape,
    latencyMs: median((samples.get(shape) ?? []).map((sample) => sample.latencyMs)),
    cpuMs: median((samples.get(shape) ?? []).map((sample) => sample.cpuMs)),
  }));
}

export { measureWriteShapes, type WriteShape, type WriteShapeRow };
