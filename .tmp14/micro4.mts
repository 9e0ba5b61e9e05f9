import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startBenchEngine } from '/work/wt/i14/test/bench/support/bench-engine.js';
import { FencedRecords } from '/work/wt/i14/lib/fenced-records.js';
import { claimFixture } from '/work/wt/i14/test/support/claim-fixture.js';
const engine = await startBenchEngine({ process: true });
const table = await engine.createKeyedTable('micro', 'pk');
const doc = engine.documentClient();
const records = new FencedRecords({ client: doc, claim: claimFixture() } as never);
async function time(name: string, n: number, f: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 100; i++) await f(-i - 1);
  const b = process.cpuUsage(); for (let i = 0; i < n; i++) await f(i); const c = process.cpuUsage(b);
  console.log(name, ((c.user + c.system) / 1000 / n).toFixed(3), 'ms cpu/op', (c.system/1000/n).toFixed(3), 'sys');
}
const n = 800;
const upd = (pk: string, rv: 'ALL_NEW' | 'NONE', cond: boolean) => new UpdateCommand({ TableName: table, Key: { pk }, ReturnValues: rv, UpdateExpression: 'SET #a = :a, #b = :b, #e = :e, #s = :s, #t = :t, #o = :o', ...(cond ? { ConditionExpression: '(attribute_not_exists(#e) OR #e < :e) AND (attribute_not_exists(#o) OR #o = :o)' } : {}), ExpressionAttributeNames: { '#a': 'writtenBy', '#b': 'amountCents', '#e': 'writer_epoch', '#s': 'writer_seq', '#t': 'writer_token', '#o': 'writer_op' }, ExpressionAttributeValues: { ':a': 'w', ':b': 1234, ':e': 3, ':s': 0, ':t': '073d1c59-30b8-418b-b074-48520bdf5595', ':o': 'f5066f1f9d965a1e6f8cec501a840703' } });
for (let r = 0; r < 2; r++) {
await time('doc Put', n, (i) => doc.send(new PutCommand({ TableName: table, Item: { pk: `b${r}-${i}`, writtenBy: 'w', amountCents: 1234 } })));
await time('doc Update NONE nocond', n, (i) => doc.send(upd(`u${r}-${i}`, 'NONE', false)));
await time('doc Update ALL_NEW cond', n, (i) => doc.send(upd(`v${r}-${i}`, 'ALL_NEW', true)));
await time('records.write', n, (i) => records.write({ tableName: table, key: { pk: `c${r}-${i}` } }, { set: { writtenBy: 'w', amountCents: 1234 } }));
}
await engine.stop();
