/**
 * What the two browser apps (the inbox and the web chat) do the same way before they start: find their page's
 * elements, and take the token from the URL fragment.
 */

/** `byId` for one page; `page` names it in the error a missing element throws (a shell out of step with its script). */
export function elementLookup(page: string): <T extends HTMLElement>(id: string) => T {
  return <T extends HTMLElement>(id: string): T => {
    const node = document.getElementById(id);
    if (node === null) throw new Error(`${page}: the page has no #${id}`);
    return node as T;
  };
}

/**
 * Takes `#token=…` out of the address bar (into this tab's sessionStorage under `storageKey`), or returns the token
 * kept there earlier. The fragment is never sent to a server; wiping it at once keeps it out of history and screenshots.
 */
export function takeToken(storageKey: string): string | null {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const fromHash = params.get('token');
  if (fromHash !== null && fromHash !== '') {
    sessionStorage.setItem(storageKey, fromHash);
    history.replaceState(null, '', location.pathname + location.search);
    return fromHash;
  }
  return sessionStorage.getItem(storageKey);
}
