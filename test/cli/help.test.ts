/**
 * Help as a newcomer meets it (issue 32), through the built CLI: every topic is described by its own
 * summary, not by its first command's, and a mistyped command on a terminal is met with "Did you mean …?"
 * (@oclif/plugin-not-found).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliEnv, packageRoot, runCli } from '../helpers/cli.js';

const TOPICS = ['claims', 'coupons', 'customers', 'flows', 'inquiries', 'points', 'refunds', 'reviews'];

interface Manifest {
  commands: Record<string, { summary?: string; description?: string }>;
}
const manifest = JSON.parse(readFileSync(join(packageRoot, 'oclif.manifest.json'), 'utf8')) as Manifest;
const summariesOf = (topic: string) =>
  Object.entries(manifest.commands)
    .filter(([id]) => id.startsWith(`${topic}:`))
    .map(([, command]) => (command.summary ?? command.description ?? '').split('\n')[0]);

test('each topic in svc --help has a summary of its own', async () => {
  // Wide enough that no description wraps, so each topic is one line.
  const r = await runCli(['--help'], { OCLIF_COLUMNS: '400' });
  assert.is(r.exitCode, 0, r.stderr);
  const topicLines = r.stdout.split('TOPICS')[1].split('COMMANDS')[0].split('\n');
  for (const topic of TOPICS) {
    const line = topicLines.find((l) => l.trim().split(/\s+/)[0] === topic);
    assert.ok(line, `${topic} is listed`);
    const summary = line.trim().slice(topic.length).trim();
    assert.ok(summary.length > 0, `${topic} has a summary`);
    assert.not.ok(summariesOf(topic).includes(summary), `${topic} is summed up by "${summary}", one of its commands' summaries`);
  }
});

test('a mistyped command on a terminal asks "Did you mean …?" and runs nothing when declined', async () => {
  // script(1) gives the CLI a terminal, as a person's shell would; "n" declines the suggestion.
  const r = await execa('script', ['-qec', 'node bin/run.js prodcts list', '/dev/null'], {
    cwd: packageRoot,
    env: cliEnv({}),
    extendEnv: false,
    reject: false,
    input: 'n\r',
    timeout: 30_000,
  });
  assert.match(r.stdout, 'prodcts list is not a svc command');
  assert.match(r.stdout, 'Did you mean products list?');
  assert.is(r.exitCode, 127);
});

test('a mistyped command in a script says so and exits 127 without waiting for an answer', async () => {
  const r = await runCli(['prodcts', 'list'], {});
  assert.is(r.exitCode, 127);
  assert.match(r.stderr, 'prodcts list is not a svc command');
  assert.match(r.stderr, 'svc help');
});

test.run();
