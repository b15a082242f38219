import { ApiCommand } from '../../cli/api-command.js';

export default class StoresList extends ApiCommand<typeof StoresList> {
  static override summary = "List the stores inside the token's store scope";

  async run() {
    const data = await this.request('GET', '/v1/me/stores');
    this.outputList(data, (contents: any[]) => this.table(contents, ['storeId', 'code', 'name', 'role']));
  }
}
