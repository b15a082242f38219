/**
 * Every command of README.md and docs/*.md, run as written (issue 32): how is in test/helpers/doc-commands.ts.
 * This file runs the docs other than the scaffolds' walks (docs-projects.test.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandsOf, docs, PROJECT_DOCS, testDocs } from '../helpers/doc-commands.js';

const root = join(import.meta.dirname, '..', '..');

test('the docs hold commands to run, and comments are not run', () => {
  assert.ok(docs.filter((d) => commandsOf(readFileSync(join(root, d), 'utf8')).length).length >= 10);
  assert.equal(commandsOf('```sh\nnpx svc a --data \'{"b":"# c"}\'   # d\n# e\nnpx svc f \\\n  --g\n```\n'), [
    { line: 2, text: `npx svc a --data '{"b":"# c"}'` },
    { line: 4, text: 'npx svc f --g' },
  ]);
});

testDocs((doc) => !PROJECT_DOCS.includes(doc));

test.run();
