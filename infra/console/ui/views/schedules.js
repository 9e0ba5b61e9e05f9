import htm from 'htm';
import { h } from 'preact';
import { api, itemHref } from '../api.js';
import { useLoad } from '../components.js';
import { StateBadge, Time } from '../format.js';

const html = htm.bind(h);

/** One schedule: what it runs, when, and the verdict `leasefence schedules` gives (computed by the server). */
function ScheduleRow({ report }) {
  const last = report.status.lastRun;
  return html`<tr>
    <td class="code">${report.name}</td>
    <td class="code">${report.jobType}</td>
    <td>${report.tenantId}</td>
    <td><span class="code">${report.expression}</span> <span class="muted">${report.timeZone}</span></td>
    <td><${Time} at=${report.status.next} /></td>
    <td>
      ${
        last
          ? html`<a href=${itemHref(report.tenantId, last.operationId)}><${Time} at=${last.scheduledAt} /></a>
              <${StateBadge} state=${last.state} />`
          : html`<span class="muted">—</span>`
      }
    </td>
    <td data-testid=${`schedule-verdict-${report.name}`} class=${`verdict verdict-${report.status.verdict}`}>
      ${report.verdictText}
    </td>
  </tr>`;
}

/** The recurring jobs, each with its next tick, last run and MISSED / NOT EVALUATED ticks, as the CLI says them. */
function SchedulesPage() {
  const answer = useLoad(() => api('GET', '/schedules'), 'schedules');
  const data = answer.data;
  const notes = (data?.schedules ?? []).flatMap((report) =>
    report.notes.map((note) => ({ ...note, name: report.name })),
  );
  return html`<section>
    <div class="page-head"><h1>Schedules</h1></div>
    <p class="muted">Each schedule's recent ticks, read by their identities: the same verdict as <code>leasefence schedules</code>.</p>
    ${
      answer.error
        ? html`<div class="notice error" role="alert" data-testid="schedules-not-evaluated">NOT EVALUATED: ${answer.error.message}</div>`
        : null
    }
    ${
      data
        ? data.schedules.length === 0
          ? html`<p class="empty">No schedules declared (the jobs module exports no <code>schedules</code>).</p>`
          : html`<table class="items" data-testid="schedules">
                <thead><tr><th>Schedule</th><th>Job type</th><th>Tenant</th><th>Expression</th><th>Next tick</th><th>Last run</th><th>Ticks</th></tr></thead>
                <tbody>${data.schedules.map((report) => html`<${ScheduleRow} key=${report.name} report=${report} />`)}</tbody>
              </table>
              ${
                notes.length > 0
                  ? html`<ul data-testid="schedule-notes">${notes.map(
                      (note) => html`<li key=${`${note.name}/${note.scheduledAt}`}>
                        <span class="code">${note.name}</span> <${Time} at=${note.scheduledAt} />: ${note.text}
                      </li>`,
                    )}</ul>`
                  : null
              }`
        : answer.loading
          ? html`<p class="loading">Loading…</p>`
          : null
    }
  </section>`;
}

export { SchedulesPage };
