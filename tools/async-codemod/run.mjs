import { project, ts } from './lib.mjs';
import { scan } from './scan.mjs';
import { ownFix } from './ownfix.mjs';
import { readFileSync, unlinkSync } from 'node:fs';
const root = '/work/async';
const skipFiles = new Set(process.env.SKIP?.split(',').map((f) => `${root}/${f}`) ?? []);
const baseline = JSON.parse(readFileSync('/work/codemod/baseline.json', 'utf8'));
const baseKeys = new Map();
for (const b of baseline) { const k = `${b.fileName}|${b.kind}|${b.text}`; baseKeys.set(k, (baseKeys.get(k) ?? 0) + 1); }
const p = project(root);
const FIXES = new Set(['addMissingAwait', 'fixAwaitInSyncFunction', 'addMissingAwaitToInitializer', 'forgottenAwait']);
const fmt = ts.getDefaultFormatCodeSettings();
const seenFixNames = new Map();
const maxRounds = Number(process.env.ROUNDS ?? 40);
for (let round = 1; round <= maxRounds; round++) {
  const edits = new Map();
  const add = (f, e) => { if (!edits.has(f)) edits.set(f, []); edits.get(f).push(e); };
  let errors = 0;
  const touched = new Set();
  for (const fileName of p.files.keys()) {
    if (skipFiles.has(fileName)) continue;
    const diags = p.service.getSemanticDiagnostics(fileName);
    for (const d of diags) {
      if (d.category !== ts.DiagnosticCategory.Error) continue;
      errors++;
      let fixes;
      try { fixes = p.service.getCodeFixesAtPosition(fileName, d.start, d.start + d.length, [d.code], fmt, {}); } catch { continue; }
      for (const fix of fixes) seenFixNames.set(fix.fixName, (seenFixNames.get(fix.fixName) ?? 0) + 1);
      const fix = fixes.find((f) => FIXES.has(f.fixName));
      if (!fix) {
        const own = ownFix(p.service.getProgram(), d);
        if (!own || skipFiles.has(own.fileName)) continue;
        const key = `${own.fileName}:${own.edits[0].span.start}`;
        if (touched.has(key)) continue;
        touched.add(key);
        for (const e of own.edits) add(own.fileName, e);
        continue;
      }
      for (const change of fix.changes) {
        if (skipFiles.has(change.fileName)) continue;
        for (const tc of change.textChanges) {
          const key = `${change.fileName}:${tc.span.start}`;
          if (touched.has(key)) continue;
          touched.add(key);
          add(change.fileName, tc);
        }
      }
    }
  }
  // floating promises and returns in try blocks that are new
  const counts = new Map();
  for (const f of scan(p.service, [...p.files.keys()].filter((f) => !skipFiles.has(f)))) {
    if (f.kind !== 'floating' && f.kind !== 'return-in-try') continue;
    const k = `${f.fileName.replace(root + '/', '')}|${f.kind}|${f.text}`;
    const n = (counts.get(k) ?? 0) + 1; counts.set(k, n);
    if (n <= (baseKeys.get(k) ?? 0)) continue;
    const key = `${f.fileName}:${f.start}`;
    if (touched.has(key)) continue;
    touched.add(key);
    add(f.fileName, { span: { start: f.start, length: 0 }, newText: 'await ' });
  }
  let n = 0;
  for (const [f, es] of edits) { if (!p.files.has(f)) continue; p.applyEdits(f, es); n += es.length; }
  console.log(`round ${round}: ${errors} errors, ${n} edits`);
  if (n === 0) break;
}
p.save();
unlinkSync(`${root}/tsconfig.codemod.json`);
console.log(Object.fromEntries(seenFixNames));
