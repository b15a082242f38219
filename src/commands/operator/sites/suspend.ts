import { operatorArgs, OperatorCommand, reasonFlag } from '../../../cli/operator.js';

export default class OperatorSitesSuspend extends OperatorCommand<typeof OperatorSitesSuspend> {
  static override summary = "Suspend a site: visitors get the suspension page, the store's changes are refused (STOREFRONT_SITE_NOT_ACTIVE)";
  static override examples = ['SVC_OPERATOR_TOKEN=… <%= config.bin %> operator sites suspend my-shop --reason POLICY_VIOLATION'];
  static override args = operatorArgs.site;
  static override flags = reasonFlag;

  async run() {
    const site = await this.operatorRequest('POST', '/storefront/suspension', { slug: this.args.slug, reason: this.flags.reason });
    this.output(site, () => this.log(`Suspended site ${site.slug} (${site.reason})`));
  }
}
