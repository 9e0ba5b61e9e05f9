import htm from 'htm';
import { h } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { itemHref } from './api.js';
import { StateBadge, Time } from './format.js';

const html = htm.bind(h);

/** Loads `load()` when `key` changes; returns { data, error, loading, reload }. */
function useLoad(load, key) {
  const [state, setState] = useState({ loading: true });
  const run = useCallback(() => {
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => setState({ data, loading: false }),
      (error) => setState({ error, loading: false }),
    );
  }, [key]);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/** An error from the API, in words. */
function ErrorBox({ error }) {
  if (!error) return null;
  return html`<div class="notice error" role="alert">${error.message}</div>`;
}

/** Previous / next over an opaque cursor; `pages` is the stack of cursors that led here. */
function Pager({ pages, cursor, onPage, count }) {
  return html`<div class="pager">
    <span class="muted">page ${pages.length + 1}${count !== undefined ? ` · ${count} rows` : ''}</span>
    <button class="secondary" disabled=${pages.length === 0} onClick=${() => onPage(pages.slice(0, -1))}>← Previous</button>
    <button class="secondary" disabled=${!cursor} onClick=${() => onPage([...pages, cursor])}>Next →</button>
  </div>`;
}

/** The identity of a row: a link for work items; for quarantine records the identity the message carried, if any. */
function Subject({ row }) {
  if (row.kind === 'quarantine') {
    const carried = row.tenantId && row.operationId;
    return html`<span class="subject"
      >${carried ? html`<span class="mono">${row.tenantId}/${row.operationId}</span> ` : ''}<span class="muted"
        >message ${row.messageId}</span
      ></span
    >`;
  }
  return html`<a class="mono" href=${itemHref(row.tenantId, row.operationId)}>${row.tenantId}/${row.operationId}</a>`;
}

/** The code a row shows: outcome, error, or a quarantine record's reason. */
function codeOf(row) {
  return row.outcomeCode ?? row.errorCode ?? row.reason;
}

/** Columns of an item table, by what the listing is about. */
function ItemTable({ rows, timeColumn = 'parkedAt', timeLabel = 'Parked', showState = false }) {
  if (rows.length === 0) return html`<p class="empty">No items match.</p>`;
  return html`<table class="items">
    <thead>
      <tr>
        <th>Item</th>
        <th>Job type</th>
        ${showState ? html`<th>State</th>` : null}
        <th class="num">Fence</th>
        <th class="num">Attempts</th>
        <th>Outcome / error</th>
        <th>${timeLabel}</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) => html`<tr key=${`${row.tenantId}/${row.operationId}/${row.messageId}`}>
          <td><${Subject} row=${row} /></td>
          <td>${row.jobType ?? html`<span class="muted">${row.kind === 'quarantine' ? 'unreadable message' : '—'}</span>`}</td>
          ${showState ? html`<td><${StateBadge} state=${row.state} /></td>` : null}
          <td class="num">${row.fence ?? '—'}</td>
          <td class="num">${row.kind === 'quarantine' ? '—' : `${row.attempts}/${row.maxAttempts}`}</td>
          <td>${codeOf(row) ? html`<span class="code">${codeOf(row)}</span>` : html`<span class="muted">—</span>`}</td>
          <td><${Time} at=${row[timeColumn]} /></td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

export { ErrorBox, ItemTable, Pager, Subject, useLoad };
