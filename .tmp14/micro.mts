import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { startBenchEngine } from '/work/wt/i14/test/bench/support/bench-engine.js';
import { FencedRecords } from '/work/wt/i14/lib/fenced-records.js';
import { claimFixture } from '/work/wt/i14/test/support/claim-fixture.js';
const engine = await startBenchEngine({ process: true });
const table = await engine.createKeyedTable('micro', 'pk');
const raw = engine.rawClient(); const doc = engine.documentClient();
const claim = claimFixture();
const records = new FencedRecords({ client: doc, claim } as never);
async function time(name: string, n: number, f: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 100; i++) await f(-i - 1);
  const b = process.cpuUsage(); for (let i = 0; i < n; i++) await f(i); const c = process.cpuUsage(b);
  console.log(name, ((c.user + c.system) / 1000 / n).toFixed(3), 'ms cpu/op');
}
const n = 800;
for (let r = 0; r < 2; r++) {
await time('raw PutItem', n, (i) => raw.send(new PutItemCommand({ TableName: table, Item: { pk: { S: `a${r}-${i}` }, writtenBy: { S: 'w' }, amountCents: { N: '1234' } } })));
await time('doc PutCommand', n, (i) => doc.send(new PutCommand({ TableName: table, Item: { pk: `b${r}-${i}`, writtenBy: 'w', amountCents: 1234 } })));
await time('records.write', n, (i) => records.write({ tableName: table, key: { pk: `c${r}-${i}` } }, { set: { writtenBy: 'w', amountCents: 1234 } }));
}
await engine.stop();
