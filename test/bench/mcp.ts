/**
 * Issue 16 benchmark, measured side by side in one run: `call_api_read` of GET /v1/store through a spawned
 * `svc mcp` (the SDK's stdio client) vs the same request made directly over HTTP, both with 8 calls in
 * flight from this process. Target: stdio ≥ 50 % of direct.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuFigure, figure, median, root, rounds, seconds, startSvcDev, withCpu } from './lib.js';

const IN_FLIGHT = 8;
const SECONDS = seconds(3);

/** Calls per second of `call` kept IN_FLIGHT at a time for SECONDS, and the CPU µs per call of `pid` (the service). */
async function callsPerSecond(pid: number, call: () => Promise<void>, duration = SECONDS) {
  let done = 0;
  const end = performance.now() + duration * 1000;
  const { cpuPerOp } = await withCpu(
    pid,
    () =>
      Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (performance.now() < end) {
            await call();
            done++;
          }
        }),
      ),
    () => done,
  );
  return { rate: done / duration, cpuPerOp };
}

const svc = await startSvcDev();
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SVC_')) env[k] = v;
const transport = new StdioClientTransport({
  command: process.execPath,
  args: ['bin/run.js', 'mcp'],
  cwd: root,
  env: {
    ...env,
    SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-bench-mcp-')),
    SVC_API_URL: svc.ready.url,
    SVC_TOKEN: svc.ready.ownerToken,
    SVC_STORE_ID: svc.ready.storeId,
  },
});
const client = new Client({ name: 'svc-bench', version: '1.0.0' });
await client.connect(transport);
const headers = { authorization: `Bearer ${svc.ready.ownerToken}`, 'x-store-id': svc.ready.storeId };
// The MCP server marks its calls as an agent's; the direct call is the same request a script would make.
const direct = async () => {
  const res = await fetch(`${svc.ready.url}/v1/store`, { headers });
  if (res.status !== 200) throw new Error(`direct GET /v1/store: ${res.status}`);
  await res.arrayBuffer();
};
const viaMcp = async () => {
  const result = await client.callTool({ name: 'call_api_read', arguments: { method: 'GET', path: '/v1/store' } });
  if (result.isError) throw new Error(`call_api_read: ${JSON.stringify(result.content)}`);
};
try {
  const pid = svc.child.pid!;
  await callsPerSecond(pid, direct, 1); // warm-up
  await callsPerSecond(pid, viaMcp, 1);
  // Alternated, median of three: drift on a shared machine hits both alike.
  const directRuns: Awaited<ReturnType<typeof callsPerSecond>>[] = [];
  const mcpRuns: Awaited<ReturnType<typeof callsPerSecond>>[] = [];
  for (let i = 0; i < rounds(3); i++) {
    directRuns.push(await callsPerSecond(pid, direct));
    mcpRuns.push(await callsPerSecond(pid, viaMcp));
  }
  const d = median(directRuns.map((r) => r.rate));
  const m = median(mcpRuns.map((r) => r.rate));
  console.log(
    `call_api_read GET /v1/store over stdio ${Math.round(m)} calls/s vs direct HTTP ${Math.round(d)} req/s → ${((100 * m) / d).toFixed(1)}% (target ≥ 50%)`,
  );
  figure({ name: 'call_api_read over stdio', value: m, unit: 'calls/s', ratio: m / d, baseline: 'direct HTTP' });
  cpuFigure('call_api_read (svc dev only)', median(mcpRuns.map((r) => r.cpuPerOp)), {
    name: 'direct GET /v1/store',
    microseconds: median(directRuns.map((r) => r.cpuPerOp)),
  });
} finally {
  await client.close();
  svc.child.kill();
}
