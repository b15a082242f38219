import { AppCommand } from '../../../../../src/cli/app/app-command.js';

export default class AppToolsList extends AppCommand<typeof AppToolsList> {
  static override summary = 'Tools of every app installed in the store';
  static override examples = ['<%= config.bin %> app tools list --json'];

  async run() {
    const data = await this.storeRequest<{ contents: { installationId: string; app: { handle: string }; name: string; description: string }[] }>(
      'GET',
      '/v1/apps/tools',
    );
    this.outputList(data, (contents) =>
      this.table(
        contents.map((t) => ({ app: t.app.handle, tool: t.name, installation: t.installationId, description: t.description })),
        ['app', 'tool', 'installation', 'description'],
      ),
    );
  }
}
