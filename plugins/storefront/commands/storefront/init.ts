import { Args, Flags } from '@oclif/core';
import { cpSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { UsageError } from '../../../../src/cli/usage-error.js';
import { StorefrontCommand } from '../../../../src/cli/storefront/storefront-command.js';

const TEMPLATES = ['basic', 'stay'] as const;

export default class StorefrontInit extends StorefrontCommand<typeof StorefrontInit> {
  static override summary = 'Create a storefront project folder from a template (basic or stay)';
  static override examples = ['<%= config.bin %> storefront init shop', '<%= config.bin %> storefront init hotel --template stay'];
  static override args = { folder: Args.string({ description: 'Folder to create', required: true }) };
  static override flags = { template: Flags.option({ options: TEMPLATES, description: 'What the shop starts from', default: 'basic' as const })() };

  async run() {
    const { templatesDir } = await import('../../../../src/cli/storefront/project.js');
    const target = resolve(this.args.folder);
    if (existsSync(target)) throw new UsageError(`${this.args.folder} already exists`);
    cpSync(join(templatesDir, this.flags.template), target, { recursive: true, filter: (path) => !/[\\/](node_modules|dist)([\\/]|$)/.test(path) });
    // The buyer API's types, from this CLI's own OpenAPI document (svc storefront types --remote: a server's).
    const types = await this.writeApiTypes(target);
    // The project carries this CLI (npm run dev / build / deploy, npx svc), locked as pnpm would: src/cli/project-cli.ts.
    const { addCliToProject, lockLinkedDevDependency, CLI_PACKAGE } = await import('../../../../src/cli/project-cli.js');
    const cli = addCliToProject(target, {
      protocol: 'link',
      scripts: { dev: 'svc storefront dev', build: 'svc storefront deploy', deploy: 'svc storefront deploy --publish' },
    });
    lockLinkedDevDependency(target, CLI_PACKAGE, cli);
    this.output({ dir: target, template: this.flags.template, apiTypes: relative(target, types.file) }, () => {
      this.log(`Created ${this.args.folder}/ from the ${this.flags.template} template (buyer API types in ${relative(target, types.file)}).`);
      this.log('Next:');
      this.log(`  cd ${this.args.folder}`);
      this.log('  npm run dev      # svc storefront dev: serve it locally with live reload against svc dev');
      this.log('  npm run deploy   # svc storefront deploy --publish: build it on the service and publish');
    });
  }
}
