import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { mergeErrors } from '../../server/contract.js';
import { ApiError, fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { defineOperation, reply, type StoreCtx } from '../../server/registry.js';
import { requireOwned } from '../../server/tenancy.js';
import { toFieldErrors } from '../../server/validation.js';
import { invokeAndRecord } from './invoke.js';
import { evictInstallation } from './isolates.js';
import type { Manifest } from '../../kernel/app-manifest.js';
import { appInstallations } from './schema.js';
import { activeInstallation, findApp, findAppByHandle, findInstallation, findVersion, latestVersion, type Installation } from './app-records.js';
import { applySettingsPatch } from './app-settings.js';
import { installationActivity, installationActivityView, installationView, presentInstallation, toolList, toolView } from './app-views.js';
import { assertRoleCovers, consentTo, install, uninstall } from './installations.js';
import { assertInstallable } from './visibility.js';
import { developerOperations } from './developer-operations.js';
import { deleteItem, listItems, readItem, storageDeleteView, storageItemView, storageKey, storageListView, storageWriteView, writeItem } from './storage.js';

defineMessages({
  APP_NOT_FOUND: '앱을 찾을 수 없습니다.',
  APP_HANDLE_TAKEN: '이미 다른 앱이 사용 중인 핸들입니다.',
  APP_NO_VERSION: '배포된 버전이 없는 앱입니다. 먼저 svc app deploy로 버전을 올리세요.',
  APP_NOT_INSTALLABLE: '이 상점에 설치할 수 없는 앱입니다. 개발 중인 앱은 개발자가 구성원인 상점에만, 비공개 앱은 개발자가 지정한 상점에만 설치됩니다.',
  APP_ALREADY_PUBLIC: '공개된 앱은 비공개로 되돌릴 수 없습니다. 설치한 상점이 끊기지 않도록 공개는 유지됩니다.',
  APP_INSTALLATION_NOT_FOUND: '앱 설치를 찾을 수 없습니다.',
  APP_INSTALLATION_ENDED: '삭제된 앱 설치입니다.',
  APP_ROUTE_FAILED: '앱의 공개 경로 처리에 실패했습니다.',
  APP_NO_PENDING_VERSION: '동의를 기다리는 새 버전이 없습니다.',
  APP_TOOL_NOT_FOUND: '앱 도구를 찾을 수 없습니다. 설치가 없거나 끝났거나 실행 중인 버전에 도구가 없습니다.',
  APP_TOOL_INPUT_INVALID: '앱 도구 입력이 올바르지 않습니다. 필수 항목이 없거나 형식이 다릅니다.',
  APP_TOOL_FAILED: '앱 도구 실행에 실패했습니다.',
  APP_SUSPENDED: '앱이 정지되었습니다. 24시간 동안 모든 호출이 앱 오류로 실패했습니다.',
  APP_STORAGE_KEY_NOT_FOUND: '저장소에 없는 키입니다.',
  APP_STORAGE_QUOTA_EXCEEDED: '앱 저장소 한도(키 1,000개, 1MB)를 넘습니다.',
  HANDLER_MISSING: '선언한 알림 또는 도구에 해당하는 함수가 없습니다.',
});

const tag = 'Apps';
const installationParams = z.object({ installationId: z.string() });
/** Installation management is for people on the store platform (spec 02 §4.1). */

async function loadInstallation(ctx: StoreCtx<unknown, unknown, { installationId: string }>, notFound = 'APP_INSTALLATION_NOT_FOUND'): Promise<Installation> {
  return requireOwned(await findInstallation(ctx.db, ctx.params.installationId), ctx.store.id, notFound);
}

async function liveInstallation(ctx: StoreCtx<unknown, unknown, { installationId: string }>): Promise<Installation> {
  const inst = await loadInstallation(ctx);
  if (inst.status !== 'ACTIVE') throw fail(409, 'APP_INSTALLATION_ENDED', { installationId: inst.id, uninstalledAt: inst.uninstalledAt });
  return inst;
}

/** Errors of `loadInstallation`, and of `liveInstallation` (an uninstalled one is ended). */
const installationNotFound = { 403: ['TENANT_MISMATCH'], 404: ['APP_INSTALLATION_NOT_FOUND'] };
const liveInstallationErrors = mergeErrors(installationNotFound, { 409: ['APP_INSTALLATION_ENDED'] });

const installationTarget = (ctx: { params: { installationId: string } }) => ({ type: 'APP_INSTALLATION', id: ctx.params.installationId });
/** Installing and managing apps is for store-platform OWNERs and ADMINs (spec 02 §4.1). */
const manage = { tag, auth: 'store' as const, callers: ['storePlatform' as const], roles: ['OWNER' as const, 'ADMIN' as const] };
const manageInstallation = { ...manage, params: installationParams, target: installationTarget };
/** An installation as it is after the change just made. */
const presentCurrent = async (ctx: StoreCtx, installationId: string) => presentInstallation(ctx.services, (await findInstallation(ctx.db, installationId))!);

/** Tool input against the declared shape: required and types checked, undeclared keys dropped (spec 02 §6). */
function toolInput(declared: NonNullable<NonNullable<Manifest['mcp']>['tools']>[string]['input'], input: Record<string, unknown>) {
  const shape = Object.fromEntries(
    Object.entries(declared ?? {}).map(([k, d]) => {
      const base = d.type === 'string' ? z.string() : d.type === 'number' ? z.number() : z.boolean();
      return [k, d.required ? base : base.optional()];
    }),
  );
  const result = z.object(shape).safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const fieldErrors = toFieldErrors(result.error.issues).map((e) => ({ ...e, field: `input.${e.field}` }));
  throw new ApiError(400, 'APP_TOOL_INPUT_INVALID', { issues: fieldErrors }, fieldErrors);
}

export const appOperations = [
  ...developerOperations,
  // ——— stores: installations (spec 02 §4.1) ———
  defineOperation({
    operationId: 'listAppInstallations',
    method: 'GET',
    path: '/v1/apps/installations',
    summary: 'Installed apps of the store',
    tag,
    auth: 'store',
    scope: 'store:r',
    query: z.object({ status: z.enum(['ACTIVE', 'UNINSTALLED']).default('ACTIVE') }).strict(),
    response: z.object({ contents: z.array(installationView) }),
    handler: async (ctx) => {
      const installations = await ctx.db
        .select()
        .from(appInstallations)
        .where(and(eq(appInstallations.storeId, ctx.store.id), eq(appInstallations.status, ctx.query.status)))
        .orderBy(desc(appInstallations.id))
        .all();
      return { contents: await Promise.all(installations.map((i) => presentInstallation(ctx.services, i))) };
    },
  }),
  defineOperation({
    operationId: 'installApp',
    method: 'POST',
    path: '/v1/apps/installations',
    summary: "Install an app's latest version, consenting to its scopes; installing an installed app consents to its pending version",
    ...manage,
    body: z.object({ handle: z.string().min(1) }).strict(),
    target: (ctx) => ({ type: 'APP', id: ctx.body.handle }),
    status: 201,
    alternateStatuses: [200],
    response: installationView.describe('201 for a new installation; 200 when the app was installed already (its pending version, if any, consented to).'),
    errors: { 403: ['APP_NOT_INSTALLABLE'], 404: ['APP_NOT_FOUND'], 409: ['APP_NO_VERSION'] },
    handler: async (ctx) => {
      const app = await findAppByHandle(ctx.db, ctx.body.handle);
      if (!app) throw fail(404, 'APP_NOT_FOUND', { handle: ctx.body.handle });
      await assertInstallable(ctx.db, app, ctx.store.id);
      const version = await latestVersion(ctx.db, app);
      assertRoleCovers(ctx.store.role, version.manifest);
      const existing = await activeInstallation(ctx.db, ctx.store.id, app.id);
      if (!existing) return reply(201, await presentInstallation(ctx.services, await install(ctx.services, app, ctx.store.id, ctx.principal.userId, ctx.now)));
      if (existing.pendingVersionId) await consentTo(ctx.services, existing, (await findVersion(ctx.db, existing.pendingVersionId))!, ctx.now);
      return reply(200, await presentCurrent(ctx, existing.id));
    },
  }),
  defineOperation({
    operationId: 'getAppInstallation',
    method: 'GET',
    path: '/v1/apps/installations/{installationId}',
    summary: 'Permissions, settings (secrets masked), version and pendingVersion',
    tag,
    auth: 'store',
    scope: 'store:r',
    params: installationParams,
    response: installationView,
    errors: installationNotFound,
    handler: async (ctx) => presentInstallation(ctx.services, await loadInstallation(ctx)),
  }),
  defineOperation({
    operationId: 'getAppInstallationActivity',
    method: 'GET',
    path: '/v1/apps/installations/{installationId}/activity',
    summary: 'Last 50 delivery results and API calls of the last 7 days',
    tag,
    auth: 'store',
    scope: 'store:r',
    params: installationParams,
    response: installationActivityView,
    errors: installationNotFound,
    handler: async (ctx) => installationActivity(ctx.services, await loadInstallation(ctx)),
  }),
  defineOperation({
    operationId: 'consentAppInstallation',
    method: 'POST',
    path: '/v1/apps/installations/{installationId}/consent',
    summary: 'Consent to the pending version; the app hears APP.SCOPES_UPDATED',
    ...manageInstallation,
    response: installationView,
    errors: mergeErrors(liveInstallationErrors, { 409: ['APP_NO_PENDING_VERSION'] }),
    handler: async (ctx) => {
      const inst = await liveInstallation(ctx);
      if (!inst.pendingVersionId) throw fail(409, 'APP_NO_PENDING_VERSION');
      const pending = (await findVersion(ctx.db, inst.pendingVersionId))!;
      assertRoleCovers(ctx.store.role, pending.manifest);
      await consentTo(ctx.services, inst, pending, ctx.now);
      return presentCurrent(ctx, inst.id);
    },
  }),
  defineOperation({
    operationId: 'updateAppInstallationSettings',
    method: 'PUT',
    path: '/v1/apps/installations/{installationId}/settings',
    summary: 'Set settings declared by the running version; null clears one',
    ...manageInstallation,
    body: z.object({ settings: z.record(z.string(), z.union([z.string().max(2000), z.number(), z.boolean(), z.null()])) }).strict(),
    response: installationView,
    errors: liveInstallationErrors,
    handler: async (ctx) => {
      const inst = await liveInstallation(ctx);
      const manifest = (await findVersion(ctx.db, inst.versionId))!.manifest;
      const settings = applySettingsPatch(manifest, inst.settings, ctx.body.settings);
      await ctx.db.update(appInstallations).set({ settings, updatedAt: ctx.now }).where(eq(appInstallations.id, inst.id)).run();
      return presentCurrent(ctx, inst.id);
    },
  }),
  defineOperation({
    operationId: 'uninstallApp',
    method: 'DELETE',
    path: '/v1/apps/installations/{installationId}',
    summary: 'Uninstall: access ends at once; settings and app storage are erased 48 hours later',
    ...manageInstallation,
    response: installationView,
    errors: liveInstallationErrors,
    handler: async (ctx) => {
      const inst = await liveInstallation(ctx);
      await uninstall(ctx.services, inst, ctx.now);
      evictInstallation(ctx.services, inst.id);
      return presentCurrent(ctx, inst.id);
    },
  }),

  // ——— tools (spec 02 §4.1, spec 01 §5.6) ———
  defineOperation({
    operationId: 'listAppTools',
    method: 'GET',
    path: '/v1/apps/tools',
    summary: "Installed apps' tools: installation id, app, name, description, input",
    tag,
    auth: 'store',
    scope: 'store:r',
    response: z.object({
      contents: z.array(toolView.extend({ installationId: z.string(), app: z.object({ appId: z.string(), handle: z.string(), name: z.string() }) })),
    }),
    handler: async (ctx) => {
      const installations = await ctx.db
        .select()
        .from(appInstallations)
        .where(and(eq(appInstallations.storeId, ctx.store.id), eq(appInstallations.status, 'ACTIVE')))
        .all();
      const tools = await Promise.all(
        installations.map(async (inst) => {
          const app = (await findApp(ctx.db, inst.appId))!;
          return toolList((await findVersion(ctx.db, inst.versionId))!.manifest).map((t) => ({
            installationId: inst.id,
            app: { appId: app.id, handle: app.handle, name: app.name },
            ...t,
          }));
        }),
      );
      return { contents: tools.flat() };
    },
  }),
  defineOperation({
    operationId: 'callAppTool',
    method: 'POST',
    path: '/v1/apps/installations/{installationId}/tools/{name}',
    summary: "Run an app's tool; returns `{ result }` (at most 64 KB)",
    tag,
    auth: 'store',
    roles: ['OWNER', 'ADMIN'],
    scope: 'store:rw',
    async: true,
    params: z.object({ installationId: z.string(), name: z.string() }),
    body: z.object({ input: z.record(z.string(), z.unknown()).default({}) }).strict(),
    target: (ctx) => ({ type: 'APP_INSTALLATION', id: ctx.params.installationId }),
    response: z.object({ result: z.json().describe("The tool's JSON result (at most 64 KB).") }),
    errors: {
      400: ['APP_TOOL_INPUT_INVALID'],
      403: ['TENANT_MISMATCH'],
      404: ['APP_TOOL_NOT_FOUND'],
      409: ['APP_SUSPENDED'],
      502: ['APP_TOOL_FAILED'],
    },
    handler: async (ctx) => {
      const inst = await loadInstallation(ctx, 'APP_TOOL_NOT_FOUND');
      if (inst.status !== 'ACTIVE') throw fail(404, 'APP_TOOL_NOT_FOUND');
      const app = (await findApp(ctx.db, inst.appId))!;
      if (app.suspendedAt) throw fail(409, 'APP_SUSPENDED', { appId: app.id });
      const version = (await findVersion(ctx.db, inst.versionId))!;
      const tool = version.manifest.mcp?.tools?.[ctx.params.name];
      if (!tool) throw fail(404, 'APP_TOOL_NOT_FOUND', { name: ctx.params.name });
      const input = toolInput(tool.input, ctx.body.input);
      const outcome = await invokeAndRecord(ctx.services, { app, installation: inst, version }, 'tool', ctx.params.name, input);
      // Uninstalled while the call ran: its result no longer belongs to the store. The runtime's eviction can
      // answer before the uninstall commits, so the eviction itself says so too.
      const evicted = !outcome.ok && outcome.code === 'INSTALLATION_EVICTED';
      if (evicted || (await findInstallation(ctx.db, inst.id))!.status !== 'ACTIVE') throw fail(404, 'APP_TOOL_NOT_FOUND');
      if (!outcome.ok) {
        throw new ApiError(
          502,
          'APP_TOOL_FAILED',
          { reason: outcome.code, appMessage: outcome.message },
          [],
          `앱 도구 실행에 실패했습니다: ${outcome.message}`,
        );
      }
      return { result: outcome.value };
    },
  }),

  // ——— app storage, for installation tokens only ———
  defineOperation({
    operationId: 'listAppStorage',
    method: 'GET',
    path: '/v1/app/storage',
    summary: "Keys of the installation's storage with usage (1,000 keys, 1 MB)",
    tag,
    auth: 'store',
    callers: ['installation'],
    query: z
      .object({ prefix: z.string().max(200).optional(), cursor: z.string().optional(), limit: z.coerce.number().int().min(1).max(1000).default(100) })
      .strict(),
    response: storageListView,
    handler: (ctx) => listItems(ctx.db, ctx.principal.tokenId, ctx.query),
  }),
  defineOperation({
    operationId: 'getAppStorageItem',
    method: 'GET',
    path: '/v1/app/storage/{key}',
    summary: 'One stored value',
    tag,
    auth: 'store',
    callers: ['installation'],
    params: z.object({ key: storageKey }),
    response: storageItemView,
    errors: { 404: ['APP_STORAGE_KEY_NOT_FOUND'] },
    handler: (ctx) => readItem(ctx.db, ctx.principal.tokenId, ctx.params.key),
  }),
  defineOperation({
    operationId: 'putAppStorageItem',
    method: 'PUT',
    path: '/v1/app/storage/{key}',
    summary: 'Store a JSON value under a key',
    tag,
    auth: 'store',
    callers: ['installation'],
    params: z.object({ key: storageKey }),
    body: z.object({ value: z.json() }).strict(),
    response: storageWriteView,
    errors: { 409: ['APP_STORAGE_QUOTA_EXCEEDED'] },
    handler: (ctx) => writeItem(ctx.db, ctx.principal.tokenId, ctx.params.key, ctx.body.value, ctx.now),
  }),
  defineOperation({
    operationId: 'deleteAppStorageItem',
    method: 'DELETE',
    path: '/v1/app/storage/{key}',
    summary: 'Remove a key',
    tag,
    auth: 'store',
    callers: ['installation'],
    params: z.object({ key: storageKey }),
    response: storageDeleteView,
    errors: { 404: ['APP_STORAGE_KEY_NOT_FOUND'] },
    handler: (ctx) => deleteItem(ctx.db, ctx.principal.tokenId, ctx.params.key),
  }),
];
