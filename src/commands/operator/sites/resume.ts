import { operatorArgs, OperatorCommand } from '../../../cli/operator.js';

export default class OperatorSitesResume extends OperatorCommand<typeof OperatorSitesResume> {
  static override summary = "Lift a site's suspension";
  static override examples = ['SVC_OPERATOR_TOKEN=… <%= config.bin %> operator sites resume my-shop'];
  static override args = operatorArgs.site;

  async run() {
    const site = await this.operatorRequest('DELETE', '/storefront/suspension', { slug: this.args.slug });
    this.output(site, () => this.log(`Site ${site.slug} is ${site.status}`));
  }
}
