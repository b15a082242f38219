// `await x!` asserts the promise; `(await x)!` asserts the value.
import { ts } from './lib.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
const files = execSync(`grep -rl "await .*!" /work/async/src /work/async/test --include=*.ts`).toString().trim().split('\n');
let total = 0;
for (const f of files) {
  let text = readFileSync(f, 'utf8');
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
  const edits = [];
  const visit = (n) => {
    if (ts.isAwaitExpression(n) && ts.isNonNullExpression(n.expression)) {
      const inner = n.expression.expression;
      edits.push({ start: n.getStart(sf), end: n.getEnd(), text: `(await ${inner.getText(sf)})!` });
      return;
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  if (!edits.length) continue;
  for (const e of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, e.start) + e.text + text.slice(e.end);
  writeFileSync(f, text); total += edits.length;
}
console.log('nonnull fixed', total);
