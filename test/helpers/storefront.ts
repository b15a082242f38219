import { apiClient, type TestService } from './service.js';

/**
 * Makes a store go public the way a seller does — its site from the `basic` template (deployment run to
 * its end), an on-sale product if it has none, visibility PUBLIC — then sets it back to coming soon: the
 * first public state is recorded for good (the agent approval exemption ends), while sandbox checkout
 * works again (a public sandbox-only store would be PAYMENT_NOT_LIVE).
 */
export async function makeStoreWentPublic(svc: TestService, auth: { token: string; storeId: string }) {
  const api = apiClient(svc.url, auth);
  const must = async (what: string, res: Promise<{ status: number; body: any; data: any }>, ...statuses: number[]) => {
    const r = await res;
    if (!statuses.includes(r.status)) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r;
  };
  const site = await must('site', api('GET', '/v1/storefront/site'), 200);
  if (!site.data.siteId) await must('site creation', api('POST', '/v1/storefront/site', { body: { templateId: 'basic' } }), 201);
  for (let i = 0; ; i++) {
    const deployment = await must('deployment', api('GET', '/v1/storefront/site/deployment'), 200);
    if (deployment.data.status === 'SUCCEEDED') break;
    if (deployment.data.status === 'FAILED' || i > 300) throw new Error(`the site's deployment did not succeed: ${JSON.stringify(deployment.data)}`);
    await must('jobs', api('POST', '/_dev/v1/jobs/run'), 200);
    await new Promise((r) => setTimeout(r, 50));
  }
  const goPublic = () => api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } });
  let opened = await goPublic();
  if (opened.status === 409 && opened.body?.error?.code === 'STOREFRONT_NOT_READY') {
    await must('product', api('POST', '/v1/products', { body: { name: '공개용 상품', salePrice: 1000, stockQuantity: 10 } }), 201);
    opened = await goPublic();
  }
  if (opened.status !== 200) throw new Error(`going public: ${opened.status} ${JSON.stringify(opened.body)}`);
  await must('back to coming soon', api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'COMING_SOON', expectedVisibility: 'PUBLIC' } }), 200);
}
