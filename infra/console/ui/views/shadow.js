import htm from 'htm';
import { h } from 'preact';
import { api, itemHref } from '../api.js';
import { ErrorBox, useLoad } from '../components.js';

const html = htm.bind(h);

/** The findings in the order `leasefence shadow report` prints them, with the words for people. */
const FINDINGS = [
  ['ran_twice', 'ran twice'],
  ['concurrent', 'ran concurrently'],
  ['after_completion', 'ran after a completion'],
  ['payload_conflict', 'payload conflict let through'],
];

const VERDICT = {
  findings: 'FINDINGS: the existing mechanism double-ran these operations; leasefence would have prevented them',
  none_recorded: 'NONE RECORDED: every shadow row was read and no double-run was found',
  not_evaluated: 'NOT EVALUATED: not everything was seen (below), so no double-run is claimed either way',
};

/** One job type's counts and examples (identities only: the rows hold no payloads). */
function JobTypeRow({ entry }) {
  return html`<tr>
    <td class="code">${entry.jobType}</td>
    <td class="num">${entry.operations}</td>
    <td class="num">${entry.executions}</td>
    <td class="num" data-testid=${`double-runs-${entry.jobType}`}>${entry.doubleRuns}</td>
    <td>${FINDINGS.filter(([key]) => entry.counts[key] > 0).map(
      ([key, words]) => html`<div key=${key}>
        ${words}: <strong>${entry.counts[key]}</strong>
        ${entry.examples[key].map(
          (example) =>
            html` <a class="code" href=${itemHref(example.tenantId, example.operationId)}>${example.tenantId}/${example.operationId}</a>`,
        )}
      </div>`,
    )}</td>
  </tr>`;
}

/** Shadow mode beside an existing consumer: what it ran twice, by job type (the same report as the CLI). */
function ShadowPage() {
  const report = useLoad(() => api('GET', '/shadow/report'), 'shadow');
  const data = report.data;
  return html`<section>
    <div class="page-head"><h1>Shadow mode</h1></div>
    <p class="muted">Executions an existing consumer ran, recorded as leasefence would have claimed them (shadowHandler).</p>
    <${ErrorBox} error=${report.error} />
    ${
      data
        ? html`<div class=${`notice ${data.verdict === 'none_recorded' ? '' : 'error'}`} data-testid="shadow-verdict">
              ${VERDICT[data.verdict]}
            </div>
            ${data.notEvaluated.length > 0 ? html`<ul data-testid="shadow-gaps">${data.notEvaluated.map((gap) => html`<li>${gap}</li>`)}</ul>` : null}
            <p>${data.operations} operations, ${data.executions} executions, <strong>${data.doubleRuns}</strong> double-runs.</p>
            ${
              data.jobTypes.length === 0
                ? html`<p class="empty">No shadow rows.</p>`
                : html`<table class="items">
                  <thead><tr><th>Job type</th><th class="num">Operations</th><th class="num">Executions</th><th class="num">Double-runs</th><th>Findings and examples</th></tr></thead>
                  <tbody>${data.jobTypes.map((entry) => html`<${JobTypeRow} key=${entry.jobType} entry=${entry} />`)}</tbody>
                </table>`
            }`
        : report.loading
          ? html`<p class="loading">Loading…</p>`
          : null
    }
  </section>`;
}

export { ShadowPage };
