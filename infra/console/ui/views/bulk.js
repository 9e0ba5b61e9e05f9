import htm from 'htm';
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api, itemPath } from '../api.js';
import { ErrorBox } from '../components.js';
import { AckBoxes, ackFields, acksAsked } from './acknowledge.js';

const html = htm.bind(h);

/** Most items one bulk retry handles (the preview reads them all first). */
const BULK_LIMIT = 1000;

/** Every item of the filtered listing, page by page, up to BULK_LIMIT. */
async function loadAll(query) {
  const items = [];
  let cursor;
  do {
    const page = await api('GET', '/items', {
      query: { state: query.state, tenant: query.tenant, olderThanSeconds: query.age, limit: 100, cursor },
    });
    items.push(...page.items);
    cursor = page.cursor;
  } while (cursor && items.length < BULK_LIMIT);
  return { items: items.slice(0, BULK_LIMIT), truncated: Boolean(cursor) || items.length > BULK_LIMIT };
}

/**
 * Bulk retry of the filtered set: a preview of exactly what will be retried, a reason and a confirmation, then one
 * audited retry per item (the same admin operation as a single retry), with progress and a list of refusals.
 */
function BulkRetry({ query }) {
  const [phase, setPhase] = useState('idle');
  const [preview, setPreview] = useState();
  const [reason, setReason] = useState('');
  const [confirmed, setConfirmed] = useState(false);
  const [acks, setAcks] = useState({});
  const [progress, setProgress] = useState({ done: 0, failed: [] });
  const [error, setError] = useState();

  const open = async () => {
    setPhase('loading');
    setError(undefined);
    try {
      const all = await loadAll(query);
      const work = all.items.filter((row) => row.kind === 'work');
      setPreview({ work, skipped: all.items.length - work.length, truncated: all.truncated });
      setPhase('preview');
    } catch (failure) {
      setError(failure);
      setPhase('idle');
    }
  };

  // Every row is tried, whatever the others answer: a refusal is listed (with the acknowledgement it asks for),
  // never the end of the run.
  const run = async (rows = preview.work) => {
    setPhase('running');
    setPreview({ ...preview, work: rows });
    setProgress({ done: 0, failed: [] });
    const failed = [];
    try {
      for (const [index, row] of rows.entries()) {
        try {
          const body = { reason, ...ackFields(acks) };
          await api('POST', `${itemPath(row.tenantId, row.operationId)}/retry`, { body });
        } catch (failure) {
          failed.push({ row, message: failure.message });
          const asked = acksAsked(failure);
          if (Object.keys(asked).length) setAcks((current) => ({ ...asked, ...current }));
        }
        setProgress({ done: index + 1, failed: [...failed] });
      }
    } finally {
      setPhase('done');
    }
  };

  if (phase === 'idle' || phase === 'loading') {
    return html`<div class="bulk-bar">
      <${ErrorBox} error=${error} />
      <button class="secondary" disabled=${phase === 'loading'} onClick=${open}>
        ${phase === 'loading' ? 'Reading the filtered set…' : 'Bulk retry the filtered set…'}
      </button>
    </div>`;
  }
  const total = preview.work.length;
  return html`<div class="panel bulk" data-testid="bulk-retry">
    <h2>Bulk retry: ${total} item${total === 1 ? '' : 's'}</h2>
    <p>
      Each item goes back to <strong>queued</strong> with its identity, a higher fence and a fresh attempt budget;
      every retry is audited with your reason.
      ${preview.skipped ? ` ${preview.skipped} quarantine record(s) without a work item are left out.` : ''}
      ${preview.truncated ? ` Only the first ${BULK_LIMIT} matching items are included.` : ''}
    </p>
    <ul class="preview">
      ${preview.work.slice(0, 10).map((row) => html`<li class="mono">${row.tenantId}/${row.operationId} <span class="muted">${row.errorCode ?? ''}</span></li>`)}
      ${total > 10 ? html`<li class="muted">… and ${total - 10} more</li>` : null}
    </ul>
    ${
      phase === 'preview'
        ? html`<label class="block"
            >Reason (required, recorded in each item's audit trail)
            <textarea value=${reason} onInput=${(event) => setReason(event.target.value)} rows="2"></textarea
          ></label>
          <${AckBoxes} acks=${acks} onChange=${setAcks} />
          <label class="check"
            ><input type="checkbox" checked=${confirmed} onChange=${(event) => setConfirmed(event.target.checked)} /> I
            checked ${total === 1 ? 'this item' : `these ${total} items`}: retrying ${total === 1 ? 'it' : 'them'} is safe</label
          >
          <div class="actions">
            <button disabled=${!confirmed || reason.trim() === '' || total === 0} onClick=${() => run()}>Retry ${total} item${total === 1 ? '' : 's'}</button>
            <button class="secondary" onClick=${() => setPhase('idle')}>Cancel</button>
          </div>`
        : html`<div class="progress"><div class="bar" style=${`width:${total ? (progress.done / total) * 100 : 100}%`}></div></div>
          <p>${progress.done} of ${total} done${progress.failed.length ? `, ${progress.failed.length} refused` : ''}${phase === 'done' ? ' · finished' : '…'}</p>
          ${
            progress.failed.length
              ? html`<ul class="failures">
                ${progress.failed.map((failure) => html`<li><span class="mono">${failure.row.tenantId}/${failure.row.operationId}</span>: ${failure.message}</li>`)}
              </ul>`
              : null
          }
          ${
            phase === 'done' && progress.failed.length
              ? html`<div class="actions">
                <${AckBoxes} acks=${acks} onChange=${setAcks} />
                <button class="secondary" onClick=${() => run(progress.failed.map((failure) => failure.row))}>
                  Retry the ${progress.failed.length} refused item${progress.failed.length === 1 ? '' : 's'}
                </button>
              </div>`
              : null
          }`
    }
  </div>`;
}

export { BulkRetry };
