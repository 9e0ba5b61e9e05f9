import type { ConsoleTarget } from './context.js';

/** Text safe inside an HTML attribute or element. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * The console's single HTML page: the import map, the per-server token (a meta tag only our own origin can read)
 * and the target for the banner; the UI itself is ui/app.js.
 */
function renderPage(input: { token: string; target: ConsoleTarget; importMap: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="leasefence-token" content="${escapeHtml(input.token)}">
<meta name="leasefence-target" content="${escapeHtml(JSON.stringify(input.target))}">
<title>leasefence console · ${escapeHtml(input.target.label)}</title>
<link rel="stylesheet" href="/ui/style.css">
<script type="importmap">${input.importMap}</script>
<script type="module" src="/ui/app.js"></script>
</head>
<body><div id="app"><p class="loading">Loading the console…</p></div></body>
</html>
`;
}

export { renderPage };
