import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkManifest, consentWidening, manifestJsonSchema, type Manifest } from '../../src/kernel/app-manifest.js';

const valid = { handle: 'demo-app', name: 'Demo', scopes: ['order:r'] };
const many = <T>(n: number, entry: (i: number) => [string, T]) => Object.fromEntries(Array.from({ length: n }, (_, i) => entry(i)));
const name = (i: number) => `n${i}`;

/** The errors of a manifest as `field → code`. */
function errors(extra: Record<string, unknown>) {
  const check = checkManifest({ ...valid, ...extra });
  return check.ok ? {} : Object.fromEntries(check.errors.map((e) => [e.field, e.code]));
}

function fails(label: string, extra: Record<string, unknown>, field: string, code: string) {
  test(`${label}: ${field} ${code}`, () => {
    const found = errors(extra);
    assert.is(found[field], code, `got ${JSON.stringify(found)}`);
    const check = checkManifest({ ...valid, ...extra });
    assert.ok(!check.ok && check.errors.every((e) => e.message.length > 0), 'every error has a message');
  });
}

function passes(label: string, extra: Record<string, unknown>) {
  test(`${label}: accepted`, () => assert.equal(errors(extra), {}));
}

passes('a minimal manifest', {});
fails('handle', { handle: 'A' }, 'handle', 'INVALID_FORMAT');
fails('handle ending in a hyphen', { handle: 'demo-' }, 'handle', 'INVALID_FORMAT');
fails('name required', { name: undefined }, 'name', 'REQUIRED');
fails('name over 60', { name: 'x'.repeat(61) }, 'name', 'TOO_LONG');
passes('name of 60', { name: 'x'.repeat(60) });
fails('unknown key', { colour: 'red' }, 'colour', 'UNKNOWN_FIELD');
fails('unknown scope', { scopes: ['order:r', 'orders:rw'] }, 'scopes.1', 'UNKNOWN_SCOPE');
fails('account scope', { scopes: ['stores:read'] }, 'scopes.0', 'UNKNOWN_SCOPE');
fails('repeated scope', { scopes: ['order:r', 'order:r'] }, 'scopes.1', 'DUPLICATE');
fails('host with a scheme', { network: { hosts: ['https://api.example.com'] } }, 'network.hosts.0', 'INVALID_FORMAT');
fails('21 hosts', { network: { hosts: Array.from({ length: 21 }, (_, i) => `h${i}.example.com`) } }, 'network.hosts', 'TOO_LONG');
passes('20 hosts', { network: { hosts: Array.from({ length: 20 }, (_, i) => `h${i}.example.com`) } });
fails('public route without a method', { http: { public: ['/hooks'] } }, 'http.public.0', 'INVALID_FORMAT');
fails('public route with a bad param', { http: { public: ['GET /orders/:1d'] } }, 'http.public.0', 'INVALID_FORMAT');
passes('public routes', { http: { public: ['GET /status/:orderId', 'POST /webhook'] } });
fails('schedule under 15 minutes', { schedules: { sync: { interval: '14m' } } }, 'schedules.sync.interval', 'INVALID_INTERVAL');
fails('schedule over a day', { schedules: { sync: { interval: '25h' } } }, 'schedules.sync.interval', 'INVALID_INTERVAL');
fails('schedule interval format', { schedules: { sync: { interval: 'hourly' } } }, 'schedules.sync.interval', 'INVALID_INTERVAL');
passes('schedules at both ends', { schedules: { a: { interval: '15m' }, b: { interval: '1d' }, c: { interval: '24h' } } });
fails('schedule name', { schedules: { Sync: { interval: '1h' } } }, 'schedules.Sync', 'INVALID_NAME');
fails('21 schedules', { schedules: many(21, (i) => [name(i), { interval: '1h' }]) }, 'schedules', 'TOO_MANY');
fails('admin page outside the app', { ui: { adminPage: '../secret.html' } }, 'ui.adminPage', 'INVALID_FORMAT');
fails('runtime', { runtime: 'docker' }, 'runtime', 'INVALID_VALUE');
fails('external runtime without url', { runtime: 'external' }, 'external.url', 'REQUIRED');
fails('external url over http', { runtime: 'external', external: { url: 'http://example.com/run' } }, 'external.url', 'HTTPS_REQUIRED');
fails('external without runtime external', { external: { url: 'https://example.com/run' } }, 'external', 'NOT_ALLOWED');
passes('external runtime', { runtime: 'external', external: { url: 'https://example.com/run' } });
fails('secret number setting', { settings: { retries: { type: 'number', label: 'Retries', secret: true } } }, 'settings.retries.secret', 'NOT_ALLOWED');
fails('setting type', { settings: { key: { type: 'date', label: 'Key' } } }, 'settings.key.type', 'INVALID_VALUE');

// flow.notifications: name (lowercase, digits, hyphen, 40) → label (60), description, params; at most 20
fails('notification name', { flow: { notifications: { Send_Proof: { label: 'x' } } } }, 'flow.notifications.Send_Proof', 'INVALID_NAME');
fails('notification name over 40', { flow: { notifications: { ['a'.repeat(41)]: { label: 'x' } } } }, `flow.notifications.${'a'.repeat(41)}`, 'INVALID_NAME');
passes('notification name of 40', { flow: { notifications: { ['a'.repeat(40)]: { label: 'x' } } } });
fails('notification label over 60', { flow: { notifications: { send: { label: 'x'.repeat(61) } } } }, 'flow.notifications.send.label', 'TOO_LONG');
fails('notification label required', { flow: { notifications: { send: {} } } }, 'flow.notifications.send.label', 'REQUIRED');
fails('21 notifications', { flow: { notifications: many(21, (i) => [name(i), { label: 'x' }]) } }, 'flow.notifications', 'TOO_MANY');
passes('20 notifications', { flow: { notifications: many(20, (i) => [name(i), { label: 'x' }]) } });
// params: name (starts with a letter, 40) → type, label, required; at most 20
fails(
  'param name',
  { flow: { notifications: { send: { label: 'x', params: { '1st': { type: 'string', label: 'x' } } } } } },
  'flow.notifications.send.params.1st',
  'INVALID_NAME',
);
fails(
  'param type',
  { flow: { notifications: { send: { label: 'x', params: { when: { type: 'date', label: 'x' } } } } } },
  'flow.notifications.send.params.when.type',
  'INVALID_VALUE',
);
fails(
  '21 params',
  { flow: { notifications: { send: { label: 'x', params: many(21, (i) => [name(i), { type: 'string', label: 'x' }]) } } } },
  'flow.notifications.send.params',
  'TOO_MANY',
);
// flow.events: name (uppercase, digits, underscore, 40) → label, description; at most 20
fails('event name', { flow: { events: { approved: { label: 'x' } } } }, 'flow.events.approved', 'INVALID_NAME');
fails('event name over 40', { flow: { events: { ['A'.repeat(41)]: { label: 'x' } } } }, `flow.events.${'A'.repeat(41)}`, 'INVALID_NAME');
fails('21 events', { flow: { events: many(21, (i) => [`E${i}`, { label: 'x' }]) } }, 'flow.events', 'TOO_MANY');
passes('events', { flow: { events: { PROOF_APPROVED: { label: 'Approved', description: 'Buyer approved' } } } });
// mcp.tools: name (lowercase, digits, hyphen, 40) → description (500), input; at most 20
fails('tool name', { mcp: { tools: { getOrders: { description: 'x' } } } }, 'mcp.tools.getOrders', 'INVALID_NAME');
fails('tool description required', { mcp: { tools: { get: {} } } }, 'mcp.tools.get.description', 'REQUIRED');
fails('tool description over 500', { mcp: { tools: { get: { description: 'x'.repeat(501) } } } }, 'mcp.tools.get.description', 'TOO_LONG');
passes('tool description of 500', { mcp: { tools: { get: { description: 'x'.repeat(500) } } } });
fails('21 tools', { mcp: { tools: many(21, (i) => [name(i), { description: 'x' }]) } }, 'mcp.tools', 'TOO_MANY');
// tool input: name (starts with a letter, 40) → type, description, required; at most 20
fails('tool input name', { mcp: { tools: { get: { description: 'x', input: { _id: { type: 'string' } } } } } }, 'mcp.tools.get.input._id', 'INVALID_NAME');
fails('tool input type', { mcp: { tools: { get: { description: 'x', input: { id: { type: 'object' } } } } } }, 'mcp.tools.get.input.id.type', 'INVALID_VALUE');
fails(
  'tool input description over 500',
  { mcp: { tools: { get: { description: 'x', input: { id: { type: 'string', description: 'x'.repeat(501) } } } } } },
  'mcp.tools.get.input.id.description',
  'TOO_LONG',
);
fails(
  '21 tool inputs',
  { mcp: { tools: { get: { description: 'x', input: many(21, (i) => [name(i), { type: 'string' }]) } } } },
  'mcp.tools.get.input',
  'TOO_MANY',
);
passes('20 tool inputs', { mcp: { tools: { get: { description: 'x', input: many(20, (i) => [name(i), { type: 'number' }]) } } } });

test('TOO_MANY names the limit and the count', () => {
  const check = checkManifest({ ...valid, mcp: { tools: many(21, (i) => [name(i), { description: 'x' }]) } });
  assert.ok(!check.ok && /20/.test(check.errors[0].message) && /21/.test(check.errors[0].message), JSON.stringify(check));
});

test('consent widening: rw covers r; removals and renames of labels need nothing', () => {
  const m = (extra: Record<string, unknown>) => {
    const c = checkManifest({ ...valid, ...extra });
    if (!c.ok) throw new Error(JSON.stringify(c.errors));
    return c.manifest as Manifest;
  };
  assert.equal(consentWidening(m({ scopes: ['order:rw'] }), m({ scopes: ['order:r'] })), {});
  assert.equal(consentWidening(m({ scopes: ['order:r'] }), m({ scopes: ['order:rw'] })), { scopes: ['order:rw'] });
  assert.equal(consentWidening(m({ mcp: { tools: { a: { description: 'x' } } } }), m({ mcp: { tools: { a: { description: 'changed' } } } })), {});
  assert.equal(
    consentWidening(
      m({}),
      m({
        network: { hosts: ['a.example.com'] },
        http: { public: ['GET /x'] },
        schedules: { s: { interval: '1h' } },
        flow: { events: { DONE: { label: 'x' } } },
        mcp: { tools: { t: { description: 'x' } } },
      }),
    ),
    { hosts: ['a.example.com'], events: ['DONE'], publicRoutes: ['GET /x'], schedules: ['s'], tools: ['t'] },
  );
  assert.equal(consentWidening(m({}), m({ runtime: 'external', external: { url: 'https://run.example.com/x' } })), { externalHost: ['run.example.com'] });
});

test('the JSON Schema shipped for editors is the one the manifest rules produce', () => {
  const file = join(import.meta.dirname, '../../templates/app/manifest.schema.json');
  const current = `${JSON.stringify(manifestJsonSchema(), null, 2)}\n`;
  if (process.env.SVC_WRITE_SCHEMA === '1') writeFileSync(file, current);
  assert.is(readFileSync(file, 'utf8'), current, 'stale: run SVC_WRITE_SCHEMA=1 node --import tsx test/apps/manifest.test.ts');
});

test('every template manifest is valid and references the schema', () => {
  for (const t of ['tools', 'flow', 'storefront-hook']) {
    const raw = JSON.parse(
      readFileSync(join(import.meta.dirname, `../../templates/app/${t}/manifest.json`), 'utf8')
        .replaceAll('{{handle}}', 'demo')
        .replaceAll('{{name}}', 'Demo'),
    );
    assert.is(raw.$schema, '../manifest.schema.json');
    const check = checkManifest(raw);
    assert.ok(check.ok, `${t}: ${JSON.stringify(!check.ok && check.errors)}`);
  }
});

test.run();
