import ts from 'typescript';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function project(root) {
  const configPath = join(root, `tsconfig.codemod.${process.pid}.json`);
  writeFileSync(configPath, readFileSync('/work/codemod/tsconfig.base.json'));
  const parsed = ts.getParsedCommandLineOfConfigFile(configPath, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => console.error(d) });
  const files = new Map(parsed.fileNames.map((f) => [f, { text: readFileSync(f, 'utf8'), version: 0, dirty: false }]));
  const host = {
    getScriptFileNames: () => [...files.keys()],
    getScriptVersion: (f) => String(files.get(f)?.version ?? 0),
    getScriptSnapshot: (f) => {
      const entry = files.get(f);
      if (entry) return ts.ScriptSnapshot.fromString(entry.text);
      if (!ts.sys.fileExists(f)) return undefined;
      return ts.ScriptSnapshot.fromString(ts.sys.readFile(f));
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => parsed.options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry());
  return {
    files, service,
    applyEdits(fileName, edits) {
      const entry = files.get(fileName);
      const sorted = [...edits].sort((a, b) => b.span.start - a.span.start);
      let last = Infinity;
      for (const e of sorted) {
        if (e.span.start + e.span.length > last) continue; // overlapping: next round
        entry.text = entry.text.slice(0, e.span.start) + e.newText + entry.text.slice(e.span.start + e.span.length);
        last = e.span.start;
      }
      entry.version++;
      entry.dirty = true;
    },
    save() {
      for (const [f, e] of files) if (e.dirty) writeFileSync(f, e.text);
    },
  };
}

export function isPromiseLike(checker, type) {
  if (!type) return false;
  if (type.isUnion()) return type.types.some((t) => isPromiseLike(checker, t));
  const then = type.getProperty('then');
  if (!then) return false;
  const sym = type.getSymbol();
  return !!sym && (sym.name === 'Promise' || sym.name === 'PromiseLike');
}
export { ts };
