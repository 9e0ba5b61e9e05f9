import htm from 'htm';
import { h, render } from 'preact';
import { target } from './api.js';
import { useRoute } from './router.js';
import { AuditLog } from './views/audit.js';
import { Dlq } from './views/dlq.js';
import { ItemPage } from './views/item.js';
import { Items } from './views/items.js';
import { LimitsPage } from './views/limits.js';
import { Overview } from './views/overview.js';
import { SchedulesPage } from './views/schedules.js';
import { ShadowPage } from './views/shadow.js';

const html = htm.bind(h);

/** The banner: which system every action on this page changes. */
function TargetBanner() {
  const aws = target.kind === 'aws';
  return html`<div class=${`target ${aws ? 'aws' : 'local'}`} data-testid="target-banner">
    <strong>${aws ? 'AWS' : 'Local stack'}</strong>
    ${
      aws
        ? html`<span>account <b>${target.account ?? 'unknown'}</b></span>
          ${target.region ? html`<span>region <b>${target.region}</b></span>` : null}
          ${target.stack ? html`<span>stack <b>${target.stack}</b></span>` : null}`
        : html`<span>${target.label}</span>`
    }
    <span>table <b>${target.jobsTable}</b></span>
  </div>`;
}

const NAV = [
  ['/', 'Overview'],
  ['/items', 'Items', '?state=unknown'],
  ['/dlq', 'Dead letters'],
  ['/schedules', 'Schedules'],
  ['/limits', 'Limits'],
  ['/audit', 'Audit log'],
  ['/shadow', 'Shadow mode'],
];

function Header({ segments }) {
  const current = `/${segments[0] ?? ''}`;
  return html`<header>
    <div class="bar">
      <a class="brand" href="#/">leasefence <span>console</span></a>
      <nav>
        ${NAV.map(
          ([path, label, query = '']) =>
            html`<a href=${`#${path}${query}`} class=${current === path || (path === '/items' && current === '/item') ? 'active' : ''}>${label}</a>`,
        )}
      </nav>
    </div>
    <${TargetBanner} />
  </header>`;
}

function Page({ route }) {
  const [head, ...rest] = route.segments;
  if (head === 'items') return html`<${Items} key=${JSON.stringify(route.query)} query=${route.query} />`;
  if (head === 'item' && rest.length >= 2) {
    const [tenantId, ...operation] = rest;
    return html`<${ItemPage} key=${rest.join('/')} tenantId=${tenantId} operationId=${operation.join('/')} />`;
  }
  if (head === 'dlq') return html`<${Dlq} />`;
  if (head === 'audit') return html`<${AuditLog} />`;
  if (head === 'shadow') return html`<${ShadowPage} />`;
  if (head === 'schedules') return html`<${SchedulesPage} />`;
  if (head === 'limits') return html`<${LimitsPage} key=${rest.join('/')} jobType=${rest[0]} query=${route.query} />`;
  return html`<${Overview} key=${route.query.tenant ?? ''} query=${route.query} />`;
}

function App() {
  const route = useRoute();
  return html`<${Header} segments=${route.segments} />
    <main><${Page} route=${route} /></main>`;
}

const root = document.getElementById('app');
root.textContent = ''; // drop the "Loading…" placeholder the server rendered
render(html`<${App} />`, root);
