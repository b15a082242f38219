import ts from 'typescript';
import { readFileSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { relative, dirname } from 'node:path';
const root = '/work/async';
const files = execSync(`grep -rlE "sqlite\\.transaction\\(" ${root}/src ${root}/test --include=*.ts`).toString().trim().split('\n');
for (const file of files) {
  let text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edits = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.arguments.length === 0 && ts.isCallExpression(node.expression)) {
      const inner = node.expression;
      const callee = inner.expression;
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'transaction' && ts.isPropertyAccessExpression(callee.expression) && callee.expression.name.text === 'sqlite' && inner.arguments.length === 1) {
        const owner = callee.expression.expression.getText(sf);
        const fn = inner.arguments[0].getText(sf);
        edits.push({ start: node.getStart(sf), end: node.getEnd(), text: `transaction(${owner}.db, ${fn})` });
        return; // nested transactions inside are rare; handled by a second run
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  if (!edits.length) continue;
  edits.sort((a, b) => b.start - a.start);
  for (const e of edits) text = text.slice(0, e.start) + e.text + text.slice(e.end);
  // import
  const clientPath = relative(dirname(file), `${root}/src/db/client.js`).replace(/^(?!\.)/, './');
  const importRe = new RegExp(`import \\{([^}]*)\\} from '${clientPath.replace(/\./g, '\\.')}';`);
  if (importRe.test(text)) text = text.replace(importRe, (m, names) => names.split(',').map((s) => s.trim()).includes('transaction') ? m : `import {${names.replace(/\s*$/, '')}, transaction } from '${clientPath}';`);
  else text = `import { transaction } from '${clientPath}';\n` + text;
  writeFileSync(file, text);
  console.log(file.replace(root + '/', ''), edits.length);
}
