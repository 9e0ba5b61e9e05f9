import { useEffect, useState } from 'preact/hooks';

/** The current hash route: a path (`/item/acme/op-1`) split into decoded segments, and its query. */
function parseHash() {
  const raw = window.location.hash.replace(/^#/, '') || '/';
  const [path, search = ''] = raw.split('?');
  const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { segments, query: Object.fromEntries(new URLSearchParams(search)) };
}

/** Re-renders on every hash change. */
function useRoute() {
  const [route, setRoute] = useState(parseHash);
  useEffect(() => {
    const onChange = () => setRoute(parseHash());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Navigates to `#path?query` (empty query values are left out). */
function navigate(path, query = {}) {
  const search = new URLSearchParams(Object.entries(query).filter(([, value]) => value !== undefined && value !== ''));
  const text = search.toString();
  window.location.hash = `${path}${text ? `?${text}` : ''}`;
}

export { navigate, useRoute };
