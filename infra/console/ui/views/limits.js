import htm from 'htm';
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorBox, useLoad } from '../components.js';
import { Time } from '../format.js';
import { navigate } from '../router.js';

const html = htm.bind(h);

/** Which limits to read: a job type always, a tenant and a key to read their limits too, providers' budgets (hash route). */
function LimitsForm({ jobType, query }) {
  const [form, setForm] = useState({
    jobType: jobType ?? '',
    tenant: query.tenant ?? '',
    key: query.key ?? '',
    provider: query.provider ?? '',
  });
  const set = (name) => (event) => setForm({ ...form, [name]: event.target.value });
  return html`<form
    class="filters"
    onSubmit=${(event) => {
      event.preventDefault();
      navigate(`/limits/${encodeURIComponent(form.jobType.trim())}`, {
        tenant: form.tenant.trim(),
        key: form.key.trim(),
        provider: form.provider.trim(),
      });
    }}
  >
    <label>Job type <input name="jobType" value=${form.jobType} placeholder="required" onInput=${set('jobType')} /></label>
    <label>Tenant <input name="tenant" value=${form.tenant} placeholder="optional" onInput=${set('tenant')} /></label>
    <label>Key <input name="key" value=${form.key} placeholder="with a tenant" onInput=${set('key')} /></label>
    <label
      >Providers <input name="provider" value=${form.provider} placeholder="stripe,mail" onInput=${set('provider')}
    /></label>
    <button type="submit">Read</button>
  </form>`;
}

/** Per concurrency limit of a job type: its size, the slots in use, held past their lease, the jobs waiting. */
function LimitsTable({ jobType, query }) {
  const report = useLoad(
    () =>
      api('GET', `/limits/${encodeURIComponent(jobType)}`, {
        query: { tenant: query.tenant, key: query.key, provider: query.provider },
      }),
    JSON.stringify([jobType, query]),
  );
  if (report.error) return html`<${ErrorBox} error=${report.error} />`;
  if (!report.data) return html`<p class="muted">Reading…</p>`;
  return html`<table class="items limits">
      <thead><tr><th>Limit</th><th>Size</th><th>In use</th><th>Past lease</th><th>Waiting</th><th>Oldest wait</th></tr></thead>
      <tbody>
        ${report.data.limits.map(
          (limit) => html`<tr key=${limit.scope}>
            <td>${limit.scope}${limit.tenantId ? html` <span class="code">${limit.tenantId}</span>` : null}</td>
            <td>${limit.limit ?? '—'}</td>
            <td>${limit.inUse}</td>
            <td>${limit.expired}</td>
            <td>${limit.waiting}</td>
            <td>${limit.oldestWaitingSince ? html`<${Time} at=${limit.oldestWaitingSince} />` : '—'}</td>
          </tr>`,
        )}
      </tbody>
    </table>
    ${report.data.budgets ? html`<${BudgetsTable} budgets=${report.data.budgets} />` : null}
    ${report.data.notRead ? html`<p class="muted">Not read: ${report.data.notRead}</p>` : null}`;
}

/** Per rate budget named: its rate, burst, tokens now, next grant, and the jobs waiting on it. */
function BudgetsTable({ budgets }) {
  return html`<table class="items budgets">
    <thead>
      <tr><th>Budget</th><th>Rate</th><th>Burst</th><th>Tokens</th><th>Next grant</th><th>Waiting</th><th>Oldest wait</th></tr>
    </thead>
    <tbody>
      ${budgets.map(
        (budget) => html`<tr key=${`${budget.provider} ${budget.scope}`}>
          <td><span class="code">${budget.provider}</span> ${budget.scope}</td>
          <td>${budget.limit !== undefined ? `${budget.limit} per ${budget.intervalMs} ms` : '—'}</td>
          <td>${budget.burst ?? '—'}</td>
          <td>${budget.tokens ?? 'full (no row)'}</td>
          <td>${budget.nextGrantAt ? html`<${Time} at=${budget.nextGrantAt} />` : 'now'}</td>
          <td>${budget.waiting}</td>
          <td>${budget.oldestWaitingSince ? html`<${Time} at=${budget.oldestWaitingSince} />` : '—'}</td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The Limits page: the slots in use and the jobs waiting per concurrency limit and rate budget (`leasefence limits`). */
function LimitsPage({ jobType, query }) {
  return html`<section>
    <div class="page-head"><h1>Concurrency limits and rate budgets</h1></div>
    <p class="muted">
      Slots in use and jobs waiting, per limit of a job type; a tenant's and a key's limits only when named. Rate
      budgets of the providers named: tokens now and jobs waiting.
    </p>
    <${LimitsForm} jobType=${jobType} query=${query} />
    ${jobType ? html`<${LimitsTable} jobType=${jobType} query=${query} />` : null}
  </section>`;
}

export { LimitsPage };
