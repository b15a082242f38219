// The flow catalogue as sellers read it: the store's flows, their published versions, a product's flow.
import { z } from 'zod';
import { defineOperation } from '../../server/registry.js';
import { loadProduct } from '../catalog/index.js';
import { listFlows, loadFlow, loadVersion, presentFlow, resolveFlow } from './flow-catalogue.js';
import { flowRecord, presentVersion, tag, versionRecord } from './flow-shapes.js';

const flowIdParams = z.object({ flowId: z.string() }).strict();

export const catalogueOperations = [
  defineOperation({
    operationId: 'listCommerceFlows',
    method: 'GET',
    path: '/v1/commerce-flows',
    summary: "The store's order flows (the two defaults, SHIPPING and MANUAL, and its own)",
    tag,
    auth: 'store',
    scope: 'flow:r',
    response: z.object({ contents: z.array(flowRecord) }),
    handler: async (ctx) => ({ contents: (await listFlows(ctx.db, ctx.store.id, ctx.now)).map(presentFlow) }),
  }),
  defineOperation({
    operationId: 'getCommerceFlow',
    method: 'GET',
    path: '/v1/commerce-flows/{flowId}',
    summary: 'An order flow: kind, progression, published version, draft',
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: flowIdParams,
    response: flowRecord,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['FLOW_NOT_FOUND'] },
    handler: async (ctx) => presentFlow(await loadFlow(ctx.db, ctx.store.id, ctx.params.flowId)),
  }),
  defineOperation({
    operationId: 'getCommerceFlowVersion',
    method: 'GET',
    path: '/v1/commerce-flows/{flowId}/versions/{version}',
    summary: 'A published version of a flow: its definition and how many items still run on it',
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: z.object({ flowId: z.string(), version: z.coerce.number().int().min(1) }).strict(),
    response: versionRecord,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['FLOW_NOT_FOUND', 'FLOW_VERSION_NOT_FOUND'] },
    handler: async (ctx) => {
      const v = await loadVersion(ctx.db, ctx.store.id, ctx.params.flowId, ctx.params.version);
      return presentVersion(ctx.db, v);
    },
  }),
  defineOperation({
    operationId: 'getProductFlow',
    method: 'GET',
    path: '/v1/products/{productId}/flow',
    summary: "The flow a product's new orders follow and where it comes from (PRODUCT, CATEGORY or PLATFORM default)",
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: z.object({ productId: z.string() }).strict(),
    response: z.object({ flowId: z.string(), version: z.number().int(), source: z.enum(['PRODUCT', 'CATEGORY', 'PLATFORM']) }),
    errors: { 403: ['TENANT_MISMATCH'], 404: ['PRODUCT_NOT_FOUND'] },
    handler: async (ctx) => {
      const { flow, version, source } = await resolveFlow(ctx.db, await loadProduct(ctx.db, ctx.store.id, ctx.params.productId), ctx.now);
      return { flowId: flow.id, version, source };
    },
  }),
];
