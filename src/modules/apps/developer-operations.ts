// Developers' operations: their apps, versions, run logs and visibility (account level: an app belongs to its developer, not to a store).
import { and, desc, eq, lt } from 'drizzle-orm';
import { z } from 'zod';
import { mergeErrors } from '../../server/contract.js';
import { fail, validationFailed } from '../../server/errors.js';
import { cursorPageOf } from '../../server/paging.js';
import { defineOperation } from '../../server/registry.js';
import { checkManifest, requiredFunctions, shippedManifestJsonSchema, type Manifest } from '../../kernel/app-manifest.js';
import { appExecutions, apps } from './schema.js';
import { ownApp } from './app-records.js';
import { addVersion, createApp } from './app-versions.js';
import { appVersionView, presentVersion } from './app-views.js';
import { executionView, presentExecution } from './executions.js';
import { presentPublishedApp, publishApp, publishBody, publishedAppView } from './visibility.js';

const tag = 'Apps';
const appNotFound = { 404: ['APP_NOT_FOUND'] };

// Taken as it comes and checked in the handler (its field errors named `manifest.…`); the document states the manifest's schema.
const { $schema: _dialect, title: _title, ...manifestStatement } = shippedManifestJsonSchema();
const manifestBody = z.record(z.string(), z.unknown()).meta(manifestStatement);
function validManifest(value: unknown): Manifest {
  const check = checkManifest(value, 'manifest.');
  if (!check.ok) throw validationFailed(check.errors);
  return check.manifest;
}

/** The built bundle (runtime/README.md): one script, its source map, the functions it defines, the admin page. */
const bundleBody = z
  .object({
    code: z.string().min(1),
    map: z.string().optional(),
    functions: z.array(z.string().regex(/^(tools|notifications|schedules|routes|events)\/.+$/)).max(200),
    adminPage: z
      .string()
      .max(256 * 1024)
      .optional(),
  })
  .strict();

export const developerOperations = [
  defineOperation({
    operationId: 'listApps',
    method: 'GET',
    path: '/v1/developer/apps',
    summary: "The caller's apps; `handle` finds one",
    tag,
    auth: 'account',
    callers: ['login', 'access'],
    query: z.object({ handle: z.string().optional() }).strict(),
    response: z.object({ contents: z.array(publishedAppView) }),
    handler: async (ctx) => {
      const where = and(eq(apps.ownerUserId, ctx.principal!.userId), ctx.query.handle ? eq(apps.handle, ctx.query.handle) : undefined);
      const rows = await ctx.db.select().from(apps).where(where).orderBy(desc(apps.id)).all();
      return { contents: await Promise.all(rows.map((app) => presentPublishedApp(ctx.db, app))) };
    },
  }),
  defineOperation({
    operationId: 'createApp',
    method: 'POST',
    path: '/v1/developer/apps',
    summary: 'Register an app from its manifest (handle and name); versions are uploaded next',
    tag,
    auth: 'account',
    callers: ['login', 'access'],
    status: 201,
    body: z.object({ manifest: manifestBody }).strict(),
    response: publishedAppView,
    errors: { 409: ['APP_HANDLE_TAKEN'] },
    handler: async (ctx) => presentPublishedApp(ctx.db, await createApp(ctx.services, ctx.principal!.userId, validManifest(ctx.body.manifest), ctx.now)),
  }),
  defineOperation({
    operationId: 'getApp',
    method: 'GET',
    path: '/v1/developer/apps/{appId}',
    summary: "One of the caller's apps",
    tag,
    auth: 'account',
    callers: ['login', 'access'],
    params: z.object({ appId: z.string() }),
    response: publishedAppView,
    errors: appNotFound,
    handler: async (ctx) => presentPublishedApp(ctx.db, await ownApp(ctx.db, ctx.params.appId, ctx.principal!.userId)),
  }),
  defineOperation({
    operationId: 'setAppVisibility',
    method: 'PUT',
    path: '/v1/developer/apps/{appId}/visibility',
    summary: 'Publish an app: PRIVATE installs in the stores named (and the developer’s own), PUBLIC in any store; public is for good',
    tag,
    auth: 'account',
    callers: ['login', 'access'],
    params: z.object({ appId: z.string() }),
    body: publishBody,
    response: publishedAppView,
    errors: mergeErrors(appNotFound, { 409: ['APP_NO_VERSION', 'APP_ALREADY_PUBLIC'] }),
    handler: async (ctx) => {
      const app = await ownApp(ctx.db, ctx.params.appId, ctx.principal!.userId);
      return presentPublishedApp(ctx.db, await publishApp(ctx.db, app, ctx.body, ctx.now));
    },
  }),
  defineOperation({
    operationId: 'createAppVersion',
    method: 'POST',
    path: '/v1/developer/apps/{appId}/versions',
    summary: 'Upload a built version; installations move to it unless it widens consent (then it waits as pendingVersion)',
    tag,
    auth: 'account',
    callers: ['login', 'access'],
    status: 201,
    // A bundle and its source map, like a storefront server bundle, may reach 10 MiB (spec 02 §8).
    maxBodyBytes: 10 * 1024 * 1024,
    params: z.object({ appId: z.string() }),
    body: z.object({ manifest: manifestBody, bundle: bundleBody }).strict(),
    response: appVersionView,
    errors: mergeErrors(appNotFound, { 400: ['HANDLER_MISSING'] }),
    handler: async (ctx) => {
      const app = await ownApp(ctx.db, ctx.params.appId, ctx.principal!.userId);
      const manifest = validManifest(ctx.body.manifest);
      const missing = requiredFunctions(manifest).filter((fn) => !ctx.body.bundle.functions.includes(fn));
      if (manifest.ui?.adminPage && ctx.body.bundle.adminPage === undefined) missing.push('ui/adminPage');
      if (missing.length) throw fail(400, 'HANDLER_MISSING', { functions: missing });
      return presentVersion(await addVersion(ctx.services, app, ctx.principal!.userId, manifest, ctx.body.bundle, ctx.now));
    },
  }),
  defineOperation({
    operationId: 'listAppLogs',
    method: 'GET',
    path: '/v1/developer/apps/{appId}/logs',
    summary: "Runs of the app's code in every store, newest first (kept 7 days); `cursor` pages back",
    tag,
    auth: 'account',
    callers: ['login', 'access'],
    params: z.object({ appId: z.string() }),
    query: z
      .object({
        installationId: z.string().optional(),
        cursor: z.string().optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
      })
      .strict(),
    response: cursorPageOf(executionView),
    errors: appNotFound,
    handler: async (ctx) => {
      const app = await ownApp(ctx.db, ctx.params.appId, ctx.principal!.userId);
      const q = ctx.query;
      const where = and(
        eq(appExecutions.appId, app.id),
        q.installationId ? eq(appExecutions.installationId, q.installationId) : undefined,
        q.cursor ? lt(appExecutions.id, q.cursor) : undefined,
      );
      const rows = await ctx.db
        .select()
        .from(appExecutions)
        .where(where)
        .orderBy(desc(appExecutions.id))
        .limit(q.limit + 1)
        .all();
      const page = rows.slice(0, q.limit);
      return { contents: page.map(presentExecution), nextCursor: rows.length > q.limit ? page[page.length - 1].id : null };
    },
  }),
];
