import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { and, eq, inArray, ne } from 'drizzle-orm';
import type { H3 } from 'h3';
import { z } from 'zod';
import { transaction, type Db } from '../../../db/client.js';
import { claimEachDue } from '../../../db/claim.js';
import { isoAt } from '../../../db/clock.js';
import { newId } from '../../../db/ids.js';
import { RuntimeHost } from '../../../runtime-host/index.js';
import { fail } from '../../../server/errors.js';
import type { Job } from '../../../server/jobs.js';
import { queueMail } from '../../../server/mail.js';
import { defineMessages } from '../../../server/messages.js';
import { instant } from '../../../server/responses.js';
import type { Services } from '../../../server/services.js';
import { usersByIds } from '../../accounts/index.js';
import { emitEvent } from '../../events/index.js';
import { readBlob } from '../serving/blobs.js';
import { editingTrustCookie } from '../serving/preview.js';
import { bundleProject } from '../builds/bundle.js';
import { startLiveServer, type LiveServer } from './live-server.js';
import { editing } from '../schema.js';
import { sellerSandboxed } from '../builds/seller-sandbox.js';
import { currentFiles } from '../builds/site-files.js';
import { requireActiveSite } from '../sites/sites.js';

defineMessages({
  EDIT_CAPACITY_FULL: '지금은 편집 환경을 더 열 수 없습니다. retryAfterSeconds 뒤에 다시 시도하세요.',
});

type Editing = typeof editing.$inferSelect;

/** Spec 02 §8: sleeps after 15 minutes idle; closes after 30 minutes without file write, check or build; notice 5 minutes before. */
export const SLEEP_AFTER_MS = 15 * 60_000;
export const CLOSE_AFTER_MS = 30 * 60_000;
export const NOTICE_BEFORE_MS = 5 * 60_000;
const RUNNING = ['STARTING', 'READY'] as const;
/** One build of the environment's project (a whole site build has 10 minutes, with its install). */
const BUILD_WALL_MS = 60_000;

const sleepAt = (e: Editing) => e.lastActiveAt + SLEEP_AFTER_MS;
const closeAt = (e: Editing) => e.lastWorkAt + CLOSE_AFTER_MS;
const noticeAt = (e: Editing) => closeAt(e) - NOTICE_BEFORE_MS;
/** The job's next look: whichever of sleep, notice and close comes first. */
const nextLook = (e: Editing) =>
  Math.min(...[(RUNNING as readonly string[]).includes(e.status) ? sleepAt(e) : Infinity, e.noticeSentAt === null ? noticeAt(e) : Infinity, closeAt(e)]);

/**
 * What this process runs for its environments: their live servers, the runtime worker their pages render
 * in (started with the first environment) and the service's app, which answers their buyer API in-process.
 */
interface EditingRuntime {
  app: H3;
  host: RuntimeHost | null;
  servers: Map<string, LiveServer>;
}
const runtimes = new WeakMap<Services, EditingRuntime>();
function runtimeOf(services: Services): EditingRuntime {
  const runtime = runtimes.get(services);
  if (!runtime) throw new Error('storefront editing is not mounted');
  return runtime;
}
const serversOf = (services: Services) => runtimeOf(services).servers;

export function mountEditing(app: H3, services: Services) {
  runtimes.set(services, { app, host: null, servers: new Map() });
}
const dirOf = (services: Services, id: string) => join(services.config.dataDir, 'editing', id);

export const openEditing = (db: Db, storeId: string): Promise<Editing | undefined> =>
  db
    .select()
    .from(editing)
    .where(and(eq(editing.storeId, storeId), ne(editing.status, 'CLOSED')))
    .get();

async function save(db: Db, e: Editing): Promise<Editing> {
  const saved = { ...e, nextAttemptAt: e.status === 'CLOSED' ? null : nextLook(e) };
  await db.update(editing).set(saved).where(eq(editing.id, e.id)).run();
  return saved;
}

/**
 * Starts (or wakes) the store's editing environment: the site's current files in a working folder,
 * served live by a live server whose pages render in the runtime worker. Capacity counts running
 * environments of this service.
 */
export async function startEditing(services: Services, storeId: string, userId: string): Promise<Editing> {
  const sandboxed = sellerSandboxed(services.config.storefront.sellerSandbox);
  const now = services.clock.now();
  const starting = await transaction(services.db, async () => {
    const site = await requireActiveSite(services.db, storeId);
    const current = await openEditing(services.db, storeId);
    if (current && current.status !== 'SLEEPING' && serversOf(services).has(current.id))
      return { env: await save(services.db, { ...current, lastActiveAt: now }), start: false };
    const others = (
      await services.db
        .select({ id: editing.id, lastActiveAt: editing.lastActiveAt })
        .from(editing)
        .where(inArray(editing.status, [...RUNNING]))
        .all()
    ).filter((r) => r.id !== current?.id);
    if (others.length >= services.config.storefront.editCapacity) {
      const freeAt = Math.min(...others.map((r) => r.lastActiveAt + SLEEP_AFTER_MS));
      throw fail(409, 'EDIT_CAPACITY_FULL', {
        capacity: services.config.storefront.editCapacity,
        retryAfterSeconds: Math.max(1, Math.ceil((freeAt - now) / 1000)),
      });
    }
    if (current) return { env: await save(services.db, { ...current, status: 'STARTING', url: null, lastActiveAt: now }), start: true };
    const created: Editing = {
      id: newId('edit', now),
      storeId,
      siteId: site.id,
      status: 'STARTING',
      startedBy: userId,
      url: null,
      lastActiveAt: now,
      lastWorkAt: now,
      noticeSentAt: null,
      nextAttemptAt: null,
      createdAt: now,
      closedAt: null,
    };
    await services.db.insert(editing).values(created).run();
    return { env: await save(services.db, created), start: true };
  });
  if (!starting.start) return starting.env;
  const env = starting.env;
  const dir = dirOf(services, env.id);
  rmSync(dir, { recursive: true, force: true });
  for (const [path, file] of Object.entries(await currentFiles(services.db, storeId))) writeWorkingFile(dir, path, readBlob(services, file.hash));
  const runtime = runtimeOf(services);
  // A runtime worker apart from the published sites': an environment's code that brings its worker down
  // stops no visitor's request.
  runtime.host ??= new RuntimeHost({
    onCallbackError: (error, where) => console.error(`[svc] editing ${where.op} callback failed (${where.installationId}):`, error),
  });
  let server: LiveServer;
  try {
    server = await startLiveServer({
      dir,
      host: '127.0.0.1',
      port: 0,
      name: `${env.id.replace(/_/g, '-')}.localhost`,
      storeId,
      id: `edit:${env.id}`,
      runtime: runtime.host,
      bundle: (config, signal) => bundleProject(dir, config, { sandboxed, minify: false, hashNames: false, wallMs: BUILD_WALL_MS, signal }),
      // The environment is the seller's: its buyer API calls carry the preview trust (sandbox checkout on a public shop).
      buyerApi: async (request) => {
        const trust = await editingTrustCookie(services, storeId);
        if (trust) request.headers.set('cookie', trust);
        return runtime.app.fetch(request);
      },
      // Rebuild notices are for a developer's terminal; the service log keeps the failures.
      log: (line) => {
        if (line.startsWith('✗')) console.error(`[svc] editing ${env.id}: ${line}`);
      },
    });
  } catch (error) {
    await transaction(services.db, () => save(services.db, { ...env, status: 'SLEEPING' }));
    throw fail(400, 'STOREFRONT_SOURCE_INVALID', { reason: 'DEV_SERVER_FAILED', detail: (error as Error).message });
  }
  serversOf(services).set(env.id, server);
  return transaction(services.db, async () => {
    const current = (await services.db.select().from(editing).where(eq(editing.id, env.id)).get())!;
    return save(services.db, { ...current, status: 'READY', url: server.url });
  });
}

function writeWorkingFile(dir: string, path: string, bytes: Buffer) {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), bytes);
}

/**
 * A file write, check or build: keeps the store's environment open (and awake). A written file reaches
 * the running live server's folder, which rebuilds.
 */
export async function touchEditing(services: Services, db: Db, storeId: string, now: number, write?: { path: string; bytes: Buffer | null }) {
  const env = await openEditing(db, storeId);
  if (!env) return;
  await save(db, { ...env, lastWorkAt: now, lastActiveAt: now, noticeSentAt: null });
  if (!write || !serversOf(services).has(env.id)) return;
  const target = join(dirOf(services, env.id), write.path);
  if (write.bytes) writeWorkingFile(dirOf(services, env.id), write.path, write.bytes);
  else rmSync(target, { force: true });
  serversOf(services).get(env.id)!.rebuild();
}

async function stopServer(services: Services, id: string) {
  const server = serversOf(services).get(id);
  serversOf(services).delete(id);
  await server?.close();
}

/** Sleeps idle environments, sends the closing notice, closes the ones without work for 30 minutes. */
async function advanceEditing(services: Services, now: number): Promise<number> {
  // Servers whose environment was closed elsewhere (a disable, another process) stop here.
  for (const id of [...serversOf(services).keys()]) {
    const status = (await services.db.select({ status: editing.status }).from(editing).where(eq(editing.id, id)).get())?.status;
    if (status !== 'STARTING' && status !== 'READY') await stopServer(services, id);
  }
  let handled = 0;
  for await (const env of claimEachDue(services.db, editing, now)) {
    handled++;
    if (now >= closeAt(env)) {
      await stopServer(services, env.id);
      rmSync(dirOf(services, env.id), { recursive: true, force: true });
      await transaction(services.db, () => save(services.db, { ...env, status: 'CLOSED', url: null, closedAt: now }));
      continue;
    }
    const sleeping = (RUNNING as readonly string[]).includes(env.status) && now >= sleepAt(env);
    if (sleeping) await stopServer(services, env.id);
    await transaction(services.db, async () => {
      const next = { ...env, ...(sleeping ? { status: 'SLEEPING' as const, url: null } : {}) };
      if (env.noticeSentAt === null && now >= noticeAt(env)) {
        next.noticeSentAt = now;
        await notifyClosing(services, env, now);
      }
      await save(services.db, next);
    });
  }
  return handled;
}

async function notifyClosing(services: Services, env: Editing, now: number) {
  const at = isoAt(closeAt(env));
  await emitEvent(services.db, now, { storeId: env.storeId, type: 'STOREFRONT.EDITING_CLOSING', resource: null, data: { editingId: env.id, closeAt: at } });
  const user = (await usersByIds(services.db, [env.startedBy])).get(env.startedBy);
  if (user) {
    await queueMail(services.db, now, {
      to: user.email,
      subject: '[svc] 편집 환경이 5분 뒤 닫힙니다',
      body: `스토어프런트 편집 환경(${env.id})이 ${at}에 닫힙니다. 계속하려면 파일을 저장하거나 검사·빌드를 실행하세요.`,
    });
  }
}

/** Closes the store's environment at once (the site was disabled); its server stops on the next job tick. */
export async function closeEditing(db: Db, storeId: string, now: number) {
  const env = await openEditing(db, storeId);
  if (env) await save(db, { ...env, status: 'CLOSED', url: null, closedAt: now });
}

export const editingJob: Job = { name: 'storefront-editing', run: (services, now) => advanceEditing(services, now) };

export async function stopEditingServers(services: Services) {
  const runtime = runtimes.get(services);
  if (!runtime) return;
  await Promise.all([...runtime.servers.keys()].map((id) => stopServer(services, id)));
  await runtime.host?.close();
  runtime.host = null;
}

export const editingSchema = z.object({
  editingId: z.string(),
  status: z.enum(['STARTING', 'READY', 'SLEEPING', 'CLOSED']),
  url: z.string().nullable(),
  idleSleepAt: instant.nullable(),
  closeAt: instant.nullable(),
});

export const presentEditing = (e: Editing): z.output<typeof editingSchema> => ({
  editingId: e.id,
  status: e.status,
  url: e.url,
  idleSleepAt: (RUNNING as readonly string[]).includes(e.status) ? isoAt(sleepAt(e)) : null,
  closeAt: e.status === 'CLOSED' ? null : isoAt(closeAt(e)),
});
