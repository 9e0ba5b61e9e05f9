import htm from 'htm';
import { h } from 'preact';

const html = htm.bind(h);

/** 2026-11-30 13:20:05 UTC (operators compare times across regions: always UTC, always absolute). */
function absolute(ms) {
  if (typeof ms !== 'number') return '—';
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

/** 45s, 3m, 5h, 2d */
function duration(ms) {
  const seconds = Math.floor(Math.abs(ms) / 1000);
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

/** "3m ago", "in 20s", "just now". */
function relative(ms, now = Date.now()) {
  if (typeof ms !== 'number') return '';
  const delta = now - ms;
  if (Math.abs(delta) < 1000) return 'just now';
  return delta > 0 ? `${duration(delta)} ago` : `in ${duration(delta)}`;
}

/** A time shown absolute (UTC) with the relative age beside it. */
function Time({ at }) {
  if (typeof at !== 'number') return html`<span class="muted">—</span>`;
  return html`<time datetime=${new Date(at).toISOString()} title=${new Date(at).toISOString()}
    >${absolute(at)}<span class="rel">${relative(at)}</span></time
  >`;
}

/** A state as a coloured badge. */
function StateBadge({ state }) {
  return html`<span class=${`badge state-${state}`}>${String(state).replace('_', ' ')}</span>`;
}

export { absolute, duration, relative, StateBadge, Time };
