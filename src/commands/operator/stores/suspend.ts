import { operatorArgs, OperatorCommand, reasonFlag } from '../../../cli/operator.js';

export default class OperatorStoresSuspend extends OperatorCommand<typeof OperatorStoresSuspend> {
  static override summary = "Suspend a store's hosting: its site shows the suspension page, storefront changes and site creation are refused (STORE_SUSPENDED)";
  static override examples = ['SVC_OPERATOR_TOKEN=… <%= config.bin %> operator stores suspend str_… --reason FRAUD_REVIEW'];
  static override args = operatorArgs.store;
  static override flags = reasonFlag;

  async run() {
    const store = await this.operatorRequest('POST', '/storefront/store-suspension', { storeId: this.args.storeId, reason: this.flags.reason });
    this.output(store, () => this.log(`Suspended store ${store.storeId} (${store.reason})`));
  }
}
