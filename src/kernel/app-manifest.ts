import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { packageRoot } from '../paths.js';
import type { FieldError } from '../server/errors.js';
import { stated } from '../server/formats.js';
import { toFieldErrors } from '../server/validation.js';
import { ACCOUNT_SCOPES, ALL_SCOPES } from './scopes.js';

/**
 * The app manifest of spec 02 §2.1, as one zod schema: the service validates uploads with it, `svc app
 * build` validates before bundling, and the JSON Schema for editors is generated from it.
 */

/** Per-list limit of spec 02 §8 (notifications, parameters, events, tools, tool inputs); we apply it to every list. */
const MANIFEST_LIST_LIMIT = 20;

const LOWER_NAME = /^[a-z0-9-]{1,40}$/;
const UPPER_NAME = /^[A-Z0-9_]{1,40}$/;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
export const HANDLE = /^[a-z](?:[a-z0-9]|-(?=[a-z0-9])){1,28}[a-z0-9]$/;
export const HANDLE_RULE = '3 to 30 lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen, no two hyphens in a row';
const HOST = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
const PUBLIC_ROUTE = /^(GET|POST|PUT|PATCH|DELETE) (\/(?:[A-Za-z0-9._~-]+|:[A-Za-z][A-Za-z0-9_]*))+$/;
const INTERVAL = /^([1-9][0-9]*)(m|h|d)$/;
const ADMIN_PAGE = /^(?!\/)(?!.*\.\.)[A-Za-z0-9._/-]+\.html$/;

const MIN_INTERVAL_S = 15 * 60;
const MAX_INTERVAL_S = 24 * 3600;

export function intervalSeconds(interval: string): number {
  const m = INTERVAL.exec(interval);
  if (!m) return Number.NaN;
  return Number(m[1]) * { m: 60, h: 3600, d: 86400 }[m[2] as 'm' | 'h' | 'd'];
}

const text = (max: number) => z.string().min(1).max(max);

/** A map from declared names to entries: names follow `pattern`, at most MANIFEST_LIST_LIMIT of them. */
function namedMap<T extends z.ZodType>(pattern: RegExp, nameRule: string, entry: T) {
  return z
    .record(z.string().regex(pattern, { message: `이름 규칙: ${nameRule}` }), entry)
    .superRefine((value, ctx) => {
      const n = Object.keys(value).length;
      if (n > MANIFEST_LIST_LIMIT)
        ctx.addIssue({ code: 'custom', message: `최대 ${MANIFEST_LIST_LIMIT}개까지 선언할 수 있습니다 (현재 ${n}개).`, params: { code: 'TOO_MANY' } });
    })
    .meta({ maxProperties: MANIFEST_LIST_LIMIT });
}

function uniqueList<T extends z.ZodType<string>>(item: T, max = MANIFEST_LIST_LIMIT) {
  return z
    .array(item)
    .max(max)
    .superRefine((list, ctx) => {
      list.forEach((v, i) => {
        if (list.indexOf(v) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `중복된 값입니다: ${v}`, params: { code: 'DUPLICATE' } });
      });
    })
    .meta(stated.uniqueItems);
}

const valueType = z.enum(['string', 'number', 'boolean']);
const lowerName = '소문자, 숫자, 하이픈으로 40자 이내';
const fieldName = '영문자로 시작하고 영문자, 숫자, 밑줄로 40자 이내';

/** A parameter of a flow notification, and an input field of a tool (installations and tool lists show them as declared). */
export const flowParam = z.object({ type: valueType, label: text(60), required: z.boolean().optional() }).strict();
export const toolInputField = z.object({ type: valueType, description: text(500).optional(), required: z.boolean().optional() }).strict();

/** Store scopes an app may ask for (account scopes are a person's, never an app's). */
const APP_SCOPES = ALL_SCOPES.filter((s) => !(ACCOUNT_SCOPES as readonly string[]).includes(s));

const scope = z
  .string()
  .superRefine((s, ctx) => {
    if (!APP_SCOPES.includes(s)) {
      ctx.addIssue({ code: 'custom', message: `알 수 없는 상점 권한입니다: ${s} (형식 {resource}:{r|rw}, 예: order:r)`, params: { code: 'UNKNOWN_SCOPE' } });
    }
  })
  .meta({ enum: APP_SCOPES });

const externalUrl = z
  .string()
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: '절대 URL이어야 합니다.', params: { code: 'INVALID_URL' } });
      return;
    }
    const local = url.hostname === 'localhost' || url.hostname === '127.0.0.1';
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
      ctx.addIssue({
        code: 'custom',
        message: 'https URL이어야 합니다 (개발 중에는 http://localhost, http://127.0.0.1 허용).',
        params: { code: 'HTTPS_REQUIRED' },
      });
    }
  })
  .meta({ format: 'uri', pattern: '^(?:https://|http://(?:localhost|127\\.0\\.0\\.1)(?:[:/?#]|$))' });

export const manifestSchema = z
  .object({
    $schema: z.string().optional().meta({ description: 'Path or URL of this JSON Schema, for editors.' }),
    handle: z
      .string()
      .regex(HANDLE, { message: '핸들 규칙: 소문자로 시작, 소문자·숫자·하이픈 3~30자, 하이픈으로 끝나거나 연속되지 않음' })
      .meta({ description: 'Unique app id in URLs and event names (app.<handle>.<EVENT>).' }),
    name: text(60).meta({ description: 'Name shown to sellers on the consent screen.' }),
    scopes: uniqueList(scope, 64).default([]).meta({ description: 'Store scopes the app asks for, e.g. order:r, product:rw.' }),
    network: z
      .object({
        hosts: uniqueList(z.string().regex(HOST, { message: '호스트 이름이어야 합니다 (예: api.example.com, 스킴·포트·경로 없이 소문자).' })).default([]),
      })
      .strict()
      .optional()
      .meta({ description: 'External hosts app code may call; nothing leaves to other hosts.' }),
    http: z
      .object({
        public: uniqueList(
          z.string().regex(PUBLIC_ROUTE, { message: '`<METHOD> /path/:param` 형식이어야 합니다 (METHOD는 GET, POST, PUT, PATCH, DELETE).' }),
        ).default([]),
      })
      .strict()
      .optional()
      .meta({
        description:
          'Public routes served without login at https://<handle>.<apps host>/hooks/<installationId>/... (svc dev: /apps/<handle>/hooks/<installationId>/...).',
      }),
    schedules: namedMap(
      LOWER_NAME,
      lowerName,
      z
        .object({
          interval: z
            .string()
            .superRefine((v, ctx) => {
              const s = intervalSeconds(v);
              if (!(s >= MIN_INTERVAL_S && s <= MAX_INTERVAL_S))
                ctx.addIssue({ code: 'custom', message: `15m 이상 1d 이하의 간격이어야 합니다 (예: 15m, 2h, 1d): ${v}`, params: { code: 'INVALID_INTERVAL' } });
            })
            .meta({ pattern: '^(?:(?:1[5-9]|[2-9]\\d|[1-9]\\d\\d|1[0-3]\\d\\d|14[0-3]\\d|1440)m|(?:[1-9]|1\\d|2[0-4])h|1d)$' }),
        })
        .strict(),
    )
      .optional()
      .meta({ description: 'Per-installation jobs; interval from 15m to 1d.' }),
    ui: z
      .object({
        adminPage: z.string().regex(ADMIN_PAGE, { message: '앱 폴더 안의 .html 파일 상대 경로여야 합니다 (예: ui/admin.html).' }),
      })
      .strict()
      .optional(),
    runtime: z.enum(['sandbox', 'external']).default('sandbox').meta({ description: 'sandbox: functions run in the service; external: on external.url.' }),
    external: z.object({ url: externalUrl }).strict().optional(),
    settings: namedMap(
      FIELD_NAME,
      fieldName,
      z
        .object({
          type: valueType,
          label: text(60),
          description: text(500).optional(),
          required: z.boolean().optional(),
          secret: z.boolean().optional(),
        })
        .strict()
        .meta(stated.when('secret', [true], { properties: { type: { const: 'string' } } })),
    )
      .optional()
      .meta({ description: 'Settings the seller fills in; secret ones show only their first 4 characters.' }),
    flow: z
      .object({
        notifications: namedMap(
          LOWER_NAME,
          lowerName,
          z
            .object({
              label: text(60),
              description: text(500).optional(),
              params: namedMap(FIELD_NAME, fieldName, flowParam).optional(),
            })
            .strict(),
        ).optional(),
        events: namedMap(UPPER_NAME, '대문자, 숫자, 밑줄로 40자 이내', z.object({ label: text(60), description: text(500).optional() }).strict()).optional(),
      })
      .strict()
      .optional(),
    mcp: z
      .object({
        tools: namedMap(
          LOWER_NAME,
          lowerName,
          z
            .object({
              description: text(500),
              input: namedMap(FIELD_NAME, fieldName, toolInputField).optional(),
            })
            .strict(),
        ).optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    if (m.runtime === 'external' && !m.external)
      ctx.addIssue({ code: 'custom', path: ['external', 'url'], message: 'runtime이 external이면 external.url이 필요합니다.', params: { code: 'REQUIRED' } });
    if (m.runtime !== 'external' && m.external)
      ctx.addIssue({ code: 'custom', path: ['external'], message: 'external은 runtime이 external일 때만 씁니다.', params: { code: 'NOT_ALLOWED' } });
    for (const [name, s] of Object.entries(m.settings ?? {})) {
      if (s.secret && s.type !== 'string')
        ctx.addIssue({ code: 'custom', path: ['settings', name, 'secret'], message: '비밀 설정은 string 형식만 가능합니다.', params: { code: 'NOT_ALLOWED' } });
    }
  })
  // The rules above, stated for editors and the OpenAPI document (runtime left out is sandbox).
  .meta(stated.when('runtime', ['external'], { required: ['external'] }, { not: { required: ['external'] } }));

export type Manifest = z.output<typeof manifestSchema>;

/** zod issues with key names checked by a record's key schema reported as the rule they broke. */
function manifestFieldErrors(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldError[] {
  return issues.flatMap((issue) => {
    const errors =
      issue.code === 'invalid_key'
        ? [{ field: issue.path.map(String).join('.'), code: 'INVALID_NAME', message: issue.issues[0]?.message ?? '이름이 올바르지 않습니다.' }]
        : toFieldErrors([issue]);
    return errors.map((e) => ({ ...e, field: prefix + e.field }));
  });
}

export type ManifestCheck = { ok: true; manifest: Manifest } | { ok: false; errors: FieldError[] };

export function checkManifest(value: unknown, prefix = ''): ManifestCheck {
  const result = manifestSchema.safeParse(value, { reportInput: true });
  return result.success ? { ok: true, manifest: result.data } : { ok: false, errors: manifestFieldErrors(result.error.issues, prefix) };
}

/** The JSON Schema editors use, shipped as templates/app/manifest.schema.json (test/apps/manifest.test.ts keeps it current). */
export function manifestJsonSchema() {
  return { ...z.toJSONSchema(manifestSchema, { io: 'input' }), title: 'svc app manifest (manifest.json)' };
}

/** manifestJsonSchema() as shipped: read, where working it out cost every start of the service ~2% (issue 31). */
export function shippedManifestJsonSchema(): ReturnType<typeof manifestJsonSchema> {
  return JSON.parse(readFileSync(join(packageRoot, 'templates', 'app', 'manifest.schema.json'), 'utf8')) as ReturnType<typeof manifestJsonSchema>;
}

/** What a seller consents to: the parts of a manifest whose growth needs new consent (spec 02 §2.1). */
export function consentSurface(m: Manifest) {
  return {
    scopes: m.scopes,
    hosts: m.network?.hosts ?? [],
    events: Object.keys(m.flow?.events ?? {}),
    publicRoutes: m.http?.public ?? [],
    schedules: Object.keys(m.schedules ?? {}),
    tools: Object.keys(m.mcp?.tools ?? {}),
    externalHost: m.runtime === 'external' && m.external ? new URL(m.external.url).host : null,
  };
}

/** Scope `needed` is covered by one of `granted` (`rw` includes `r`). */
const scopeCovered = (granted: readonly string[], needed: string) =>
  granted.includes(needed) || (needed.endsWith(':r') && granted.includes(`${needed.slice(0, -2)}:rw`));

/** Items `next` adds over `current`, per consent kind; empty when the version can run on the old consent. */
export function consentWidening(current: Manifest, next: Manifest): Record<string, string[]> {
  const a = consentSurface(current);
  const b = consentSurface(next);
  const added = (from: string[], to: string[]) => to.filter((x) => !from.includes(x));
  const out: Record<string, string[]> = {
    scopes: b.scopes.filter((s) => !scopeCovered(a.scopes, s)),
    hosts: added(a.hosts, b.hosts),
    events: added(a.events, b.events),
    publicRoutes: added(a.publicRoutes, b.publicRoutes),
    schedules: added(a.schedules, b.schedules),
    tools: added(a.tools, b.tools),
    externalHost: b.externalHost && b.externalHost !== a.externalHost ? [b.externalHost] : [],
  };
  for (const k of Object.keys(out)) if (out[k].length === 0) delete out[k];
  return out;
}

/**
 * Functions a build must define (else `HANDLER_MISSING`): one per declared tool, flow notification and
 * schedule, and one per public route (named by its entry, e.g. `routes/GET /orders/:id`).
 */
export function requiredFunctions(manifest: Manifest): string[] {
  if (manifest.runtime === 'external') return [];
  return [
    ...Object.keys(manifest.mcp?.tools ?? {}).map((n) => `tools/${n}`),
    ...Object.keys(manifest.flow?.notifications ?? {}).map((n) => `notifications/${n}`),
    ...Object.keys(manifest.schedules ?? {}).map((n) => `schedules/${n}`),
    ...(manifest.http?.public ?? []).map((r) => `routes/${r}`),
  ];
}
