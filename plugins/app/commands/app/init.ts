import { Args, Flags } from '@oclif/core';
import { cpSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { UsageError } from '../../../../src/cli/usage-error.js';
import { AppCommand } from '../../../../src/cli/app/app-command.js';

const TEMPLATES = ['tools', 'flow', 'storefront-hook'] as const;

export default class AppInit extends AppCommand<typeof AppInit> {
  static override summary = 'Create an app folder from a template (tools, flow or storefront-hook)';
  static override examples = ['<%= config.bin %> app init demo', '<%= config.bin %> app init order-proof --template flow --name "Order proof"'];
  static override args = { folder: Args.string({ description: 'Folder to create; its name is the app handle', required: true }) };
  static override flags = {
    template: Flags.option({ options: TEMPLATES, description: 'What the app starts with', default: 'tools' as const })(),
    name: Flags.string({ description: 'Name sellers see (default: the folder name)' }),
  };

  async run() {
    const { packageRoot } = await import('../../../../src/cli/paths.js');
    const { checkManifest, HANDLE, HANDLE_RULE } = await import('../../../../src/cli/app/project.js');
    const target = resolve(this.args.folder);
    const handle = target.split(/[\\/]/).pop()!;
    if (!HANDLE.test(handle)) {
      const suggestion = handle
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^[^a-z]+|-+$/g, '')
        .slice(0, 30)
        .replace(/-+$/, '');
      throw new UsageError(
        `the folder name is the app's handle, and "${handle}" is not one: a handle is ${HANDLE_RULE}${HANDLE.test(suggestion) ? ` (e.g. svc app init ${suggestion})` : ''}`,
      );
    }
    if (existsSync(target)) throw new UsageError(`${this.args.folder} already exists`);
    const templates = join(packageRoot, 'templates', 'app');
    const name = this.flags.name ?? handle;
    const probe = checkManifest({ handle, name });
    if (!probe.ok) throw new UsageError(`cannot use "${handle}" / "${name}": ${probe.errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`);

    // Every template starts from the shared files (package.json, tsconfig.json, sandbox typings).
    cpSync(join(templates, '_shared'), target, { recursive: true });
    cpSync(join(templates, this.flags.template), target, { recursive: true });
    // npm drops .gitignore files from packages, so templates carry it without the dot.
    renameSync(join(target, 'gitignore'), join(target, '.gitignore'));
    for (const file of ['manifest.json', 'package.json']) {
      const path = join(target, file);
      writeFileSync(path, readFileSync(path, 'utf8').replaceAll('{{handle}}', handle).replaceAll('{{name}}', JSON.stringify(name).slice(1, -1)));
    }
    // Editors validate manifest.json against the schema shipped in this CLI's package.
    const manifestPath = join(target, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    manifest.$schema = relative(target, join(templates, 'manifest.schema.json')).split('\\').join('/');
    writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
    // The project carries this CLI (npm run build / deploy / dev, npx svc): src/cli/project-cli.ts.
    const { addCliToProject } = await import('../../../../src/cli/project-cli.js');
    addCliToProject(target, { protocol: 'file', scripts: { build: 'svc app build', deploy: 'svc app deploy', dev: 'svc app dev' } });

    this.output({ dir: target, handle, template: this.flags.template }, () => {
      this.log(`Created ${this.args.folder}/ from the ${this.flags.template} template (handle ${handle}).`);
      this.log('Next:');
      this.log(`  cd ${this.args.folder}`);
      this.log('  npm run build        # svc app build: bundle the functions');
      this.log('  npm run deploy       # svc app deploy: upload a version');
      this.log('  npx svc app install  # install it in your store');
      this.log('  npm run dev          # or all three on every save (svc app dev)');
    });
  }
}
