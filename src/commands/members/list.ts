import { ApiCommand } from '../../cli/api-command.js';

export default class MembersList extends ApiCommand<typeof MembersList> {
  static override summary = "List the store's members and their roles";

  async run() {
    const data = await this.storeRequest('GET', '/v1/members');
    this.outputList(data, (contents: any[]) => this.table(contents, ['memberId', 'email', 'role', 'name', 'createdAt']));
  }
}
