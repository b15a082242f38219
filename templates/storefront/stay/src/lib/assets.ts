/**
 * Built file names. The site build emits client entries with hashed names and makes a map of them
 * available to the server bundle as the global `__SVC_ASSETS__` (`{ "client.js": "assets/client-3F2A1B.js",
 * "style.css": "style.css" }`, paths relative to the site's address). Without the map (an older build,
 * or a local preview) the unhashed names are used: client entries under `assets/`, public files at the
 * site's root.
 */
declare global {
  var __SVC_ASSETS__: Record<string, string> | undefined;
}

const built = (name: string) => (typeof __SVC_ASSETS__ === 'object' && __SVC_ASSETS__ !== null ? __SVC_ASSETS__[name] : undefined);

/** A client entry's address, by the entry's file name with `.js` (`src/client.ts` → `client.js`). */
export const asset = (siteUrl: string, name: string) => `${siteUrl}${built(name) ?? `assets/${name}`}`;

/** A file of `public/`, by its path inside that folder. */
export const publicFile = (siteUrl: string, path: string) => `${siteUrl}${built(path) ?? path}`;
