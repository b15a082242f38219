import { buyerApi } from '../lib/api.js';
import { paths, type SiteConfig } from '../lib/site.js';

/** The page's `#svc-site` data: the same addresses the server used to render it. */
export function readJson<T>(id: string): T | null {
  const node = document.getElementById(id);
  return node?.textContent ? (JSON.parse(node.textContent) as T) : null;
}

const config = readJson<SiteConfig>('svc-site')!;

export const site = {
  config,
  api: buyerApi({ baseUrl: config.storefrontApiUrl, storeId: config.storeId }),
  paths: paths(config.siteUrl),
};

/** A form's fields as the shared request builders read them. */
export const formParams = (form: HTMLFormElement, submitter?: HTMLElement | null) => {
  const data = new FormData(form, submitter ?? undefined);
  const params = new URLSearchParams();
  for (const [key, value] of data) if (typeof value === 'string') params.append(key, value);
  return params;
};

export const qs = <T extends Element = HTMLElement>(selector: string, root: ParentNode = document) => root.querySelector<T & Element>(selector) as T | null;
