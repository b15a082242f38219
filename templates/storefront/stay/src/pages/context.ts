import { buyerApi, type BuyerApi } from '../lib/api.js';
import { publicFile } from '../lib/assets.js';
import { paths, type SiteConfig } from '../lib/site.js';

/** What the platform passes as `env` to `fetch(request, env)`. */
export interface Env {
  storeId: string;
  /** The buyer API, e.g. `http://127.0.0.1:8787/storefront/v1`: the only address the server's `fetch` reaches. */
  storefrontApiUrl: string;
  /** The site's own address, ending with `/` (e.g. `http://dev-store.localhost:8787/` (svc dev)). */
  siteUrl: string;
  /** The published version (`v3`), shown in the footer. */
  version: string;
}

/** One request's view of the site. */
export interface PageContext {
  request: Request;
  env: Env;
  url: URL;
  /** The route: the path below the site's address, without leading or trailing slashes (`products/prd_1`). */
  route: string;
  api: BuyerApi;
  config: SiteConfig;
  paths: ReturnType<typeof paths>;
}

export function pageContext(request: Request, env: Env): PageContext {
  const siteUrl = env.siteUrl.endsWith('/') ? env.siteUrl : `${env.siteUrl}/`;
  const url = new URL(request.url);
  const prefix = new URL(siteUrl).pathname;
  const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname === prefix.slice(0, -1) ? '' : url.pathname;
  const config = { siteUrl, storefrontApiUrl: env.storefrontApiUrl, storeId: env.storeId, placeholderImage: publicFile(siteUrl, 'placeholder.svg') };
  return {
    request,
    env,
    url,
    route: path.replace(/^\/+|\/+$/g, ''),
    api: buyerApi({ baseUrl: env.storefrontApiUrl, storeId: env.storeId }),
    config,
    paths: paths(siteUrl),
  };
}
