import { ApiCommand } from '../../cli/api-command.js';

export default class CategoriesList extends ApiCommand<typeof CategoriesList> {
  static override summary = 'List categories as a tree';

  async run() {
    const data = await this.storeRequest('GET', '/v1/categories');
    this.outputList(data, () => {
      const children = (parentId: string | null, depth: number): void => {
        for (const c of data.contents.filter((x: any) => x.parentId === parentId)) {
          this.log(`${'  '.repeat(depth)}${c.name}  ${c.categoryId}${c.flowId ? `  flow ${c.flowId}` : ''}`);
          children(c.categoryId, depth + 1);
        }
      };
      if (data.contents.length === 0) this.log('(none)');
      children(null, 0);
    });
  }
}
