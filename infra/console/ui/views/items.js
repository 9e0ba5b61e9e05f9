import htm from 'htm';
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorBox, ItemTable, Pager, useLoad } from '../components.js';
import { navigate } from '../router.js';
import { BulkRetry } from './bulk.js';

const html = htm.bind(h);

const STATES = [
  'awaiting_approval',
  'unknown',
  'quarantined',
  'failed_terminal',
  'claimed',
  'queued',
  'succeeded',
  'cancelled',
];
const CROSS_TENANT = ['awaiting_approval', 'unknown', 'quarantined', 'failed_terminal', 'claimed', 'queued'];
const RETRYABLE = ['unknown', 'quarantined', 'failed_terminal'];
const AGES = [
  ['', 'any age'],
  ['300', '≥ 5 minutes'],
  ['3600', '≥ 1 hour'],
  ['86400', '≥ 1 day'],
];
const PAGE_SIZE = 50;

/** Which time a listing shows: when it was parked, claimed, created or last changed. */
function timeColumn(state) {
  if (RETRYABLE.includes(state)) return ['parkedAt', 'Parked'];
  if (state === 'claimed') return ['leaseExpiresAt', 'Lease expires'];
  if (state === 'queued') return ['availableAt', 'Due'];
  return ['updatedAt', 'Last change'];
}

/** How a listing is ordered (the index it reads decides; nothing is sorted in memory). */
function orderOf(state) {
  if (RETRYABLE.includes(state)) return 'Oldest parked first (the parked index).';
  if (state === 'claimed' || state === 'queued') return 'By deadline within each index shard (the deadline index).';
  return "By hash bucket, then by operation id within each (a Query on each of the tenant's 16 partition keys: neither time nor id order across the tenant).";
}

/** The listing's filters; submitting navigates, so every listing has a link. */
function Filters({ query }) {
  const [form, setForm] = useState({ state: query.state ?? '', tenant: query.tenant ?? '', age: query.age ?? '' });
  const set = (name) => (event) => setForm({ ...form, [name]: event.target.value });
  const ageApplies = CROSS_TENANT.includes(form.state);
  return html`<form
    class="filters"
    onSubmit=${(event) => {
      event.preventDefault();
      navigate('/items', { ...form, tenant: form.tenant.trim(), age: ageApplies ? form.age : '' });
    }}
  >
    <label
      >State
      <select name="state" value=${form.state} onChange=${set('state')}>
        <option value="">any state (needs a tenant)</option>
        ${STATES.map((state) => html`<option value=${state}>${state.replace('_', ' ')}</option>`)}
      </select></label
    >
    <label
      >Tenant
      <input name="tenant" value=${form.tenant} placeholder=${CROSS_TENANT.includes(form.state) ? 'all tenants' : 'required'} onInput=${set('tenant')}
    /></label>
    <label
      >Age
      <select name="age" value=${form.age} disabled=${!ageApplies} onChange=${set('age')}>
        ${AGES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
      </select></label
    >
    <button type="submit">Apply</button>
  </form>`;
}

/**
 * The listing a link asks for: `state=all` (the CLI's `--state all`) and no state both mean every state; a state
 * that is not one is refused here with the list, before anything is asked of the API.
 */
function listingOf(query) {
  const state = query.state === 'all' ? '' : (query.state ?? '');
  return { query: { ...query, state }, unknownState: state !== '' && !STATES.includes(state) ? state : undefined };
}

/** Items by state, tenant and age: parked oldest first, a tenant's jobs in any state; 50 a page. */
function Items({ query: asked }) {
  const { query, unknownState } = listingOf(asked);
  if (unknownState !== undefined) {
    return html`<section>
      <div class="page-head"><h1>Items</h1></div>
      <${Filters} query=${{ ...query, state: '' }} />
      <div class="notice error" role="alert">
        There is no state "${unknownState}". Pick one: ${STATES.join(', ')}, or any state (all).
      </div>
    </section>`;
  }
  return html`<${Listing} query=${query} />`;
}

/** One listing of a known state (or every state, for a tenant). */
function Listing({ query }) {
  const [pages, setPages] = useState([]);
  const key = JSON.stringify([query, pages]);
  const needsTenant = !CROSS_TENANT.includes(query.state) && !query.tenant;
  const listQuery = {
    state: query.state || undefined,
    tenant: query.tenant,
    olderThanSeconds: query.age,
    limit: PAGE_SIZE,
    cursor: pages.at(-1),
  };
  const list = useLoad(
    () => (needsTenant ? Promise.resolve(undefined) : api('GET', '/items', { query: listQuery })),
    key,
  );
  const [time, label] = timeColumn(query.state);
  const title = query.state ? query.state.replace('_', ' ') : 'all states';
  return html`<section>
    <div class="page-head">
      <h1>Items <span class="muted">· ${title}${query.tenant ? ` · tenant ${query.tenant}` : ''}</span></h1>
    </div>
    <${Filters} key=${JSON.stringify(query)} query=${query} />
    ${
      needsTenant
        ? html`<div class="notice">
          Listing ${query.state ? `${query.state} items` : 'every state'} needs a tenant: across tenants it would need a
          Scan of the table, which the console never does. Enter a tenant above.
        </div>`
        : null
    }
    <${ErrorBox} error=${list.error} />
    ${RETRYABLE.includes(query.state) && list.data?.items.length ? html`<${BulkRetry} query=${query} />` : null}
    ${
      list.data
        ? html`<p class="muted small">${orderOf(query.state)}</p>
          <${ItemTable} rows=${list.data.items} timeColumn=${time} timeLabel=${label} showState=${!query.state} />
          <${Pager} pages=${pages} cursor=${list.data.cursor} onPage=${setPages} count=${list.data.items.length} />`
        : list.loading && !needsTenant
          ? html`<p class="loading">Loading…</p>`
          : null
    }
  </section>`;
}

export { Items };
