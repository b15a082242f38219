import { ApiCommand } from '../../cli/api-command.js';

export default class FlowsList extends ApiCommand<typeof FlowsList> {
  static override summary = "List the store's order flows: the two defaults and its own";
  static override examples = ['<%= config.bin %> flows list', '<%= config.bin %> flows list --json'];

  async run() {
    const { contents } = await this.storeRequest('GET', '/v1/commerce-flows');
    this.output(contents, () =>
      this.table(
        contents.map((f: any) => ({
          flowId: f.flowId,
          name: f.name,
          kind: f.kind,
          default: f.isDefault ? 'yes' : '',
          progression: f.progression,
          published: f.publishedVersion ?? '-',
          draft: f.draft ? 'yes' : '',
        })),
        ['flowId', 'name', 'kind', 'default', 'progression', 'published', 'draft'],
      ),
    );
  }
}
