import htm from 'htm';
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorBox, useLoad } from '../components.js';

const html = htm.bind(h);

/** Messages moved per admin call: each call is one audited redrive. */
const CHUNK = 25;

/** DLQ depth and a redrive in audited chunks, with progress. */
function Dlq() {
  const [version, setVersion] = useState(0);
  const counts = useLoad(() => api('GET', '/counts'), version);
  const [max, setMax] = useState('1000');
  const [run, setRun] = useState();
  const [error, setError] = useState();
  const dlq = counts.data?.deadLetters;
  const start = async () => {
    const limit = Math.max(1, Math.min(100000, Number.parseInt(max, 10) || 0));
    const goal = Math.min(limit, dlq?.depth ?? limit);
    const totals = { moved: 0, movedInvalid: 0, sendFailed: 0, audits: 0, goal, running: true };
    setRun({ ...totals });
    setError(undefined);
    try {
      while (totals.moved + totals.sendFailed < limit) {
        const chunk = Math.min(CHUNK, limit - totals.moved - totals.sendFailed);
        const report = await api('POST', '/dlq/redrive', { body: { max: chunk } });
        totals.moved += report.moved;
        totals.movedInvalid += report.movedInvalid;
        totals.sendFailed += report.sendFailed;
        totals.audits += 1;
        setRun({ ...totals });
        if (report.received < chunk || report.moved === 0) break;
      }
    } catch (failure) {
      setError(failure);
    }
    setRun({ ...totals, running: false });
    setVersion((value) => value + 1);
  };
  const share = run ? (run.goal ? Math.min(100, (run.moved / run.goal) * 100) : 100) : 0;
  return html`<section>
    <div class="page-head"><h1>Dead-letter queue</h1></div>
    <${ErrorBox} error=${counts.error || error} />
    <div class="panel">
      ${dlq?.available === false ? html`<p class="muted">${dlq.reason}</p>` : null}
      ${
        dlq?.available
          ? html`<div class="big" data-testid="dlq-depth">${dlq.depth}</div>
            <p class="muted">messages waiting (approximate) · ${dlq.inFlight} in flight</p>`
          : null
      }
      <p>
        Redrive moves messages back to the jobs queue with their bodies unchanged (identity and payload hash travel
        in the body): receive, send, delete, so a crash can duplicate a wake-up but never lose one.
        Each chunk of ${CHUNK} messages is one audited admin action.
      </p>
      <div class="row">
        <label>At most <input type="number" min="1" max="100000" value=${max} onInput=${(event) => setMax(event.target.value)} /></label>
        <button disabled=${run?.running || !dlq?.available} onClick=${start}>${run?.running ? 'Redriving…' : 'Redrive'}</button>
      </div>
      ${
        run
          ? html`<div class="progress"><div class="bar" style=${`width:${share}%`}></div></div>
            <p data-testid="redrive-progress">
              moved ${run.moved} of ${run.goal}${run.movedInvalid ? ` (${run.movedInvalid} not valid envelopes: the worker will quarantine them)` : ''}${run.sendFailed ? ` · ${run.sendFailed} stay in the DLQ` : ''}
              · ${run.audits} audit record(s)${run.running ? '…' : ' · finished'}
            </p>`
          : null
      }
    </div>
  </section>`;
}

export { Dlq };
