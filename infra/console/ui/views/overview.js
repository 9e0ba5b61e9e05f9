import htm from 'htm';
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorBox, ItemTable, useLoad } from '../components.js';
import { duration, relative, StateBadge, Time } from '../format.js';
import { navigate } from '../router.js';

const html = htm.bind(h);

const PARKED = ['unknown', 'quarantined', 'failed_terminal', 'awaiting_approval'];

/** Where a count links to: parked and active states to their listing, the rest to the tenant's jobs. */
function countHref(state, tenant) {
  if (tenant) return `#/tenant?tenant=${encodeURIComponent(tenant)}&state=${state}`;
  return `#/items?state=${state}`;
}

/**
 * A state the target counts only per tenant (succeeded, cancelled: across tenants it would need a Scan): says so,
 * and asks for the tenant right there.
 */
function PerTenantCard({ entry }) {
  const [tenant, setTenant] = useState('');
  return html`<div class="card count">
    <div class="card-head"><${StateBadge} state=${entry.state} /></div>
    <div class="big muted" data-testid=${`count-${entry.state}`}>per tenant</div>
    <form
      class="card-foot"
      onSubmit=${(event) => {
        event.preventDefault();
        if (tenant.trim()) navigate('/', { tenant: tenant.trim() });
      }}
    >
      <span>${entry.reason}</span>
      <label>Tenant <input name=${`tenant-${entry.state}`} value=${tenant} onInput=${(event) => setTenant(event.target.value)} /></label>
      <button class="secondary small" type="submit" disabled=${tenant.trim() === ''}>Count</button>
    </form>
  </div>`;
}

/** One state's count as a card (or why there is none). */
function CountCard({ entry, tenant }) {
  if (!entry.available && !tenant && !PARKED.includes(entry.state)) return html`<${PerTenantCard} entry=${entry} />`;
  const parked = PARKED.includes(entry.state);
  const value = entry.available ? `${entry.count}${entry.complete ? '' : '+'}` : 'n/a';
  const body = html`<div class=${`card count ${parked && entry.available && entry.count > 0 ? 'attention' : ''}`}>
    <div class="card-head"><${StateBadge} state=${entry.state} /></div>
    <div class=${`big ${entry.available ? '' : 'muted'}`} data-testid=${`count-${entry.state}`}>${value}</div>
    <div class="card-foot">
      ${
        entry.available
          ? entry.oldestAt !== undefined
            ? html`oldest parked <strong>${relative(entry.oldestAt)}</strong>`
            : parked
              ? 'nothing parked'
              : entry.complete
                ? ' '
                : 'lower bound: more pages than counted'
          : entry.reason
      }
    </div>
  </div>`;
  return entry.available ? html`<a class="card-link" href=${countHref(entry.state, tenant)}>${body}</a>` : body;
}

/** A health signal: its value, or that this target does not provide it. */
function SignalRow({ signal }) {
  let value = html`<span class="muted">${signal.reason}</span>`;
  if (signal.available) {
    const shown = signal.unit === 'seconds' ? (signal.value > 0 ? duration(signal.value * 1000) : '0') : signal.value;
    value = html`<strong>${shown}</strong> ${signal.unit === 'seconds' ? '' : signal.unit}
      ${signal.detail ? html`<span class="muted"> · ${signal.detail}</span>` : null}
      ${signal.since ? html`<div class="muted small">counted since the worker started ${relative(signal.since)}</div>` : null}`;
  }
  return html`<tr>
    <th scope="row">${signal.label}</th>
    <td data-testid=${`signal-${signal.name}`}>${value}</td>
  </tr>`;
}

/** The oldest items waiting for an operator in one parked state (a one-page Query of the parked index). */
function OldestParked({ state, tenant, version }) {
  const list = useLoad(
    () => api('GET', '/items', { query: { state, tenant, limit: 5 } }),
    `${state}:${tenant}:${version}`,
  );
  const rows = list.data?.items ?? [];
  return html`<div class="panel">
    <h2>Oldest ${state.replace('_', ' ')} <a class="small" href=${`#/items?state=${state}${tenant ? `&tenant=${encodeURIComponent(tenant)}` : ''}`}>all →</a></h2>
    <${ErrorBox} error=${list.error} />
    ${
      rows.length === 0
        ? html`<p class="empty">${list.loading ? 'Loading…' : 'Nothing waiting.'}</p>`
        : html`<${ItemTable} rows=${rows} />`
    }
  </div>`;
}

/** Counts per state (all tenants, or one), the DLQ, and the five signals; refreshed every 15 s. */
function Overview({ query }) {
  const tenant = query.tenant ?? '';
  const [tenantInput, setTenantInput] = useState(tenant);
  const [tick, setTick] = useState(0);
  const counts = useLoad(() => api('GET', '/counts', { query: { tenant } }), `${tenant}:${tick}`);
  useEffect(() => {
    const timer = setInterval(() => setTick((value) => value + 1), 15_000);
    return () => clearInterval(timer);
  }, []);
  const data = counts.data;
  return html`<section>
    <div class="page-head">
      <h1>Overview${tenant ? html` <span class="muted">· tenant ${tenant}</span>` : ''}</h1>
      <form
        class="inline"
        onSubmit=${(event) => {
          event.preventDefault();
          navigate('/', { tenant: tenantInput.trim() });
        }}
      >
        <label>Tenant <input value=${tenantInput} placeholder="all tenants" onInput=${(event) => setTenantInput(event.target.value)} /></label>
        <button class="secondary" type="submit">Show</button>
        ${tenant ? html`<a class="button secondary" href="#/">All tenants</a>` : null}
      </form>
    </div>
    <${ErrorBox} error=${counts.error} />
    ${
      data
        ? html`<p class="muted small">
            Counted <${Time} at=${data.at} /> from the sparse indexes (never a Scan)${counts.loading ? ' · refreshing…' : ''}
          </p>
          <div class="cards">${data.states.map((entry) => html`<${CountCard} key=${entry.state} entry=${entry} tenant=${tenant} />`)}</div>
          <div class="columns">
            <div class="panel">
              <h2>Signals</h2>
              <table class="pairs">
                <tbody>
                  ${data.signals.map((signal) => html`<${SignalRow} key=${signal.name} signal=${signal} />`)}
                </tbody>
              </table>
            </div>
            <div class="panel">
              <h2>Dead-letter queue</h2>
              ${
                data.deadLetters.available
                  ? html`<div class="big" data-testid="dlq-depth">${data.deadLetters.depth}</div>
                    <p class="muted">messages waiting · ${data.deadLetters.inFlight} in flight</p>
                    <a class="button secondary" href="#/dlq">Redrive…</a>`
                  : html`<p class="muted">${data.deadLetters.reason}</p>`
              }
            </div>
          </div>
          <${OldestParked} state="unknown" tenant=${tenant} version=${tick} />`
        : counts.loading
          ? html`<p class="loading">Counting…</p>`
          : null
    }
  </section>`;
}

export { Overview };
