import { operatorArgs, OperatorCommand } from '../../../cli/operator.js';

export default class OperatorStoresResume extends OperatorCommand<typeof OperatorStoresResume> {
  static override summary = "Lift a store's hosting suspension";
  static override examples = ['SVC_OPERATOR_TOKEN=… <%= config.bin %> operator stores resume str_…'];
  static override args = operatorArgs.store;

  async run() {
    const store = await this.operatorRequest('DELETE', '/storefront/store-suspension', { storeId: this.args.storeId });
    this.output(store, () => this.log(`Store ${store.storeId}'s hosting resumed`));
  }
}
