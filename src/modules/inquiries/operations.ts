import { and, desc, eq, isNotNull, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { countRows } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { pageOf, pageQuery, paginated } from '../../server/paging.js';
import { defineOperation, reply, type BuyerCtx } from '../../server/registry.js';
import { instant } from '../../server/responses.js';
import { requireOwned } from '../../server/tenancy.js';
import { findStoreProduct } from '../catalog/index.js';
import { emitEvent } from '../events/index.js';
import { inquiries } from './schema.js';

defineMessages({ INQUIRY_NOT_FOUND: '문의를 찾을 수 없습니다.' });

type InquiryRow = typeof inquiries.$inferSelect;

const inquiryView = z.object({
  inquiryId: z.string(),
  kind: z.enum(['PRODUCT', 'PERSONAL']),
  productId: z.string().nullable(),
  customerId: z.string(),
  title: z.string(),
  text: z.string(),
  secret: z.boolean(),
  answer: z.object({ text: z.string(), answeredAt: instant }).nullable(),
  createdAt: instant,
});
const present = (i: InquiryRow): z.output<typeof inquiryView> => ({
  inquiryId: i.id,
  kind: i.kind,
  productId: i.productId,
  customerId: i.customerId,
  title: i.title,
  text: i.text,
  secret: i.secret,
  answer: i.answer && { text: i.answer.text, answeredAt: isoAt(i.answer.answeredAt) },
  createdAt: isoAt(i.createdAt),
});

const question = { title: z.string().trim().min(1).max(100), text: z.string().trim().min(1).max(2000) };
const tag = 'Storefront inquiries';

/** A member's question, stored; a product inquiry also tells the seller's systems (INQUIRY.CREATED). */
async function ask(ctx: BuyerCtx, kind: InquiryRow['kind'], productId: string | null, body: { title: string; text: string; secret?: boolean }) {
  const member = ctx.buyer.customer;
  if (!member) throw fail(401, 'UNAUTHORIZED');
  const row: InquiryRow = {
    id: newId('inq', ctx.now),
    storeId: ctx.buyer.storeId,
    kind,
    productId,
    customerId: member.id,
    title: body.title,
    text: body.text,
    secret: body.secret ?? true,
    answer: null,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  await ctx.db.insert(inquiries).values(row).run();
  if (productId)
    await emitEvent(ctx.db, ctx.now, {
      storeId: row.storeId,
      type: 'INQUIRY.CREATED',
      resource: { type: 'INQUIRY', id: row.id },
      data: { inquiryId: row.id, productId },
    });
  return reply(201, present(row));
}

export const inquiryOperations = [
  defineOperation({
    operationId: 'storefrontAskProduct',
    method: 'POST',
    path: '/storefront/v1/products/{productId}/inquiries',
    summary: 'A member asks about a product (secret: only the asker and the seller see it)',
    tag,
    auth: 'buyer',
    status: 201,
    params: z.object({ productId: z.string() }).strict(),
    body: z.object({ ...question, secret: z.boolean().default(false) }).strict(),
    response: inquiryView,
    errors: { 401: ['UNAUTHORIZED'], 404: ['PRODUCT_NOT_FOUND'] },
    handler: async (ctx) => {
      const product = await findStoreProduct(ctx.db, ctx.buyer.storeId, ctx.params.productId);
      if (!product) throw fail(404, 'PRODUCT_NOT_FOUND');
      return ask(ctx, 'PRODUCT', product.id, ctx.body);
    },
  }),
  defineOperation({
    operationId: 'storefrontAskStore',
    method: 'POST',
    path: '/storefront/v1/me/inquiries',
    summary: 'A member asks the store one-to-one (no webhook event)',
    tag,
    auth: 'buyer',
    status: 201,
    body: z.object(question).strict(),
    response: inquiryView,
    errors: { 401: ['UNAUTHORIZED'] },
    handler: (ctx) => ask(ctx, 'PERSONAL', null, { ...ctx.body, secret: true }),
  }),
  defineOperation({
    operationId: 'listInquiries',
    method: 'GET',
    path: '/v1/inquiries',
    summary: "Buyers' questions, newest first",
    tag: 'Inquiries',
    auth: 'store',
    scope: 'inquiry:r',
    query: z.object({ ...pageQuery(100), kind: z.enum(['PRODUCT', 'PERSONAL']).optional(), answered: z.enum(['true', 'false']).optional() }).strict(),
    response: pageOf(inquiryView),
    handler: async (ctx) => {
      const { kind, answered } = ctx.query;
      const where = and(
        eq(inquiries.storeId, ctx.store.id),
        kind && eq(inquiries.kind, kind),
        answered === undefined ? undefined : answered === 'true' ? isNotNull(inquiries.answer) : isNull(inquiries.answer),
      );
      const rows = await ctx.db
        .select()
        .from(inquiries)
        .where(where)
        .orderBy(desc(inquiries.createdAt), desc(inquiries.id))
        .limit(ctx.query.size)
        .offset((ctx.query.page - 1) * ctx.query.size)
        .all();
      return paginated(rows.map(present), ctx.query.page, ctx.query.size, await countRows(ctx.db, inquiries, where));
    },
  }),
  defineOperation({
    operationId: 'answerInquiry',
    method: 'POST',
    path: '/v1/inquiries/{inquiryId}/answer',
    summary: 'Answer a question (a new answer replaces the last)',
    tag: 'Inquiries',
    auth: 'store',
    scope: 'inquiry:rw',
    params: z.object({ inquiryId: z.string() }).strict(),
    body: z.object({ text: z.string().trim().min(1).max(2000) }).strict(),
    response: inquiryView,
    errors: { 403: ['TENANT_MISMATCH'], 404: ['INQUIRY_NOT_FOUND'] },
    target: (ctx) => ({ type: 'INQUIRY', id: ctx.params.inquiryId }),
    handler: async (ctx) => {
      const found = requireOwned(await ctx.db.select().from(inquiries).where(eq(inquiries.id, ctx.params.inquiryId)).get(), ctx.store.id, 'INQUIRY_NOT_FOUND');
      const changed = { ...found, answer: { text: ctx.body.text, answeredAt: ctx.now }, updatedAt: ctx.now };
      await ctx.db.update(inquiries).set(changed).where(eq(inquiries.id, found.id)).run();
      return present(changed);
    },
  }),
];
