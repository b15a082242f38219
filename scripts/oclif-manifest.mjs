// Writes oclif.manifest.json after the build, using @oclif/core's own command loader — for the core CLI
// and for each plugin of plugins/ (at the plugin's root): with the manifests, `svc --help` and every
// command start without importing all command modules (TOOLCHAIN.md).
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Config } from '@oclif/core';

const root = new URL('..', import.meta.url).pathname;
const config = await Config.load({ root, ignoreManifest: true });
for (const name of [config.pjson.name, ...(config.pjson.oclif.plugins ?? [])]) {
  const plugin = config.plugins.get(name);
  if (!plugin) throw new Error(`oclif plugin ${name} did not load: run npm install (plugins/ are linked as dependencies)`);
  // A new file changes its folder's mtime, and npm trusts node_modules/.package-lock.json only while no package
  // folder (plugins/* are linked ones) is newer than it: otherwise every `npx svc` reads the whole node_modules
  // tree first (about 1–2.5 s). The manifest is generated, no dependency change, so the folder keeps its time.
  const { atime, mtime } = statSync(plugin.root);
  writeFileSync(join(plugin.root, 'oclif.manifest.json'), `${JSON.stringify(plugin.manifest)}\n`);
  utimesSync(plugin.root, atime, mtime);
  console.log(`${name}: oclif.manifest.json with ${Object.keys(plugin.manifest.commands).length} commands`);
}
