import cluster, { type Worker } from 'node:cluster';
import { printBanner, StartFailure, type WorkerReport } from './run.js';

/** A worker that died sooner than this after the last one is started again only after this pause. */
const RESTART_PAUSE_MS = 1000;

/**
 * `svc serve --workers N` (like `medusa start --cluster N`): N processes of the service share the listening
 * port — node:cluster hands the connections out — and, on PostgreSQL, the database and the durable work,
 * which they claim from each other (docs/architecture.md). This process serves nothing itself: it prints one
 * ready line once every worker listens (or the first worker's start failure, stopping the others), starts a
 * worker again when one dies, and on SIGINT/SIGTERM stops them all, each finishing its open requests.
 */
export async function superviseWorkers(count: number, options: { json: boolean }, log: (line: string) => void) {
  const started = performance.now();
  let stopping = false;
  let lastRestart = 0;
  const fork = () => cluster.fork();
  const exited = (worker: Worker) => new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve())));
  const stopAll = async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    for (const worker of workers) worker.process.kill('SIGTERM');
    await Promise.all(workers.map(exited));
  };

  const first = await new Promise<Extract<WorkerReport, { event: 'ready' }>>((resolve, reject) => {
    let ready = 0;
    const onMessage = (_worker: Worker, report: WorkerReport) => {
      if (report.event === 'error') reject(new StartFailure(report.code, report.message));
      else if (++ready === count) {
        cluster.off('message', onMessage);
        resolve(report);
      }
    };
    cluster.on('message', onMessage);
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return;
      if (ready < count) return reject(new StartFailure('WORKER_EXITED', `worker ${worker.process.pid} exited (${signal ?? code}) before it was ready`));
      // Its claims lapse and the others take its work; a replacement takes its share of the connections.
      console.error(`[svc] worker ${worker.process.pid} exited (${signal ?? `code ${code}`}): starting another`);
      const wait = Math.max(0, lastRestart + RESTART_PAUSE_MS - Date.now());
      lastRestart = Date.now() + wait;
      setTimeout(fork, wait);
    });
    for (let i = 0; i < count; i++) fork();
  }).catch(async (failure: StartFailure) => {
    await stopAll();
    if (options.json) process.stdout.write(`${JSON.stringify({ event: 'error', code: failure.code, message: failure.message })}\n`);
    throw failure;
  });

  const stopped = new Promise<void>((resolve) => {
    const stop = async () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await stopAll();
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  const pids = Object.values(cluster.workers ?? {}).map((w) => w!.process.pid);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ ...first.readyLine, workers: count })}\n`);
  } else {
    printBanner(log, `svc serve ready in ${Math.round(performance.now() - started)} ms at ${first.readyLine.url}`, [
      ...first.details,
      `  workers        ${count} processes (${pids.join(', ')}), sharing the port and the work`,
    ]);
  }
  await stopped;
}
