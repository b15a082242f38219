/**
 * `svc webhooks listen` across a service restart: the stream drops, the CLI reconnects on its own and
 * resumes after the last event it saw (`Last-Event-ID`), so an event written while it was away arrives
 * too, each once and in order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emitEvent } from '../../src/modules/events/outbox.js';
import { cliEnv, packageRoot } from '../helpers/cli.js';
import { openServiceDatabase, startTestService, type TestService } from '../helpers/service.js';
import { eventually } from '../helpers/webhook-receiver.js';

let dataDir: string;
let configDir: string;
test.before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-listen-restart-'));
  configDir = mkdtempSync(join(tmpdir(), 'svc-listen-config-'));
});
test.after(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
});

const emit = async (svc: TestService, type: string) => {
  const res = await svc.api('POST', '/_dev/v1/events', { body: { type } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.data.eventId as string;
};

test('listen reconnects after the service restarts and resumes where it stopped', async () => {
  let svc = await startTestService({ dataDir });
  const port = Number(new URL(svc.url).port);
  const env = { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId };
  const listen = execa(process.execPath, ['bin/run.js', 'webhooks', 'listen', '--json'], {
    cwd: packageRoot,
    env: cliEnv(env),
    extendEnv: false,
    reject: false,
  });
  const received: string[] = [];
  let out = '';
  listen.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (let nl = out.indexOf('\n'); nl >= 0; nl = out.indexOf('\n')) {
      const { event } = JSON.parse(out.slice(0, nl));
      if (event !== 'ready') received.push(event.id);
      out = out.slice(nl + 1);
    }
  });
  try {
    // Until the stream is open, an event would predate it and not be sent: emit until one arrives.
    const first = await eventually(async () => {
      const id = await emit(svc, 'ORDER.PAID');
      await new Promise((ok) => setTimeout(ok, 100));
      return received.includes(id) ? id : undefined;
    }, 10_000);

    await svc.close(); // the stream drops with the service
    // An event written while the service is down, so the CLI cannot have been connected when it came.
    const database = await openServiceDatabase(dataDir);
    const whileAway = (await emitEvent(database.db, Date.now(), { storeId: svc.storeId, type: 'REVIEW.CREATED', resource: null, data: {} })).eventId;
    await database.close();
    svc = await startTestService({ dataDir, port });
    await eventually(() => received.includes(whileAway), 10_000);
    const afterwards = await emit(svc, 'CLAIM.COMPLETED');
    await eventually(() => received.includes(afterwards), 10_000);

    assert.equal(received.slice(received.indexOf(first)), [first, whileAway, afterwards], 'each once, in order');
  } finally {
    listen.kill('SIGINT');
    await listen;
    await svc.close();
  }
});

test.run();
