import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

const onOff = (description: string) => Flags.option({ options: ['on', 'off'] as const, description })();

export default class PointsPolicy extends ApiCommand<typeof PointsPolicy> {
  static override summary = "Show the store's point rules, or change them with flags (unset flags keep their value)";
  static override examples = [
    '<%= config.bin %> points policy',
    '<%= config.bin %> points policy --earn on --earn-rate 1 --validity-days 365 --use on --min-use 1000 --max-use-rate 50',
    '<%= config.bin %> points policy --use off --json',
  ];
  static override flags = {
    earn: onOff('Buyers earn points when they decide a purchase'),
    'earn-rate': Flags.string({ description: 'Default earn rate in percent (e.g. 1 or 0.5); products may have their own' }),
    'validity-days': Flags.string({ description: 'Days earned and granted points stay valid, or "none"' }),
    use: onOff('Buyers may pay with points'),
    'min-use': Flags.integer({ min: 0, description: 'Least points one payment may use, in won' }),
    'max-use-rate': Flags.string({ description: 'Most of a payment points may cover, in percent' }),
  };

  async run() {
    const f = this.flags;
    const current = await this.storeRequest('GET', '/v1/point-policy');
    const bp = (percent: string | undefined, fallback: number) => (percent === undefined ? fallback : Math.round(Number(percent) * 100));
    const changing = [f.earn, f['earn-rate'], f['validity-days'], f.use, f['min-use'], f['max-use-rate']].some((v) => v !== undefined);
    const policy = !changing
      ? current
      : await this.storeRequest('PUT', '/v1/point-policy', {
          body: {
            earnEnabled: f.earn === undefined ? current.earnEnabled : f.earn === 'on',
            defaultEarnRateBp: bp(f['earn-rate'], current.defaultEarnRateBp),
            validityDays: f['validity-days'] === undefined ? current.validityDays : f['validity-days'] === 'none' ? null : Number(f['validity-days']),
            useEnabled: f.use === undefined ? current.useEnabled : f.use === 'on',
            minUseAmount: f['min-use'] ?? current.minUseAmount,
            maxUseRateBp: bp(f['max-use-rate'], current.maxUseRateBp),
          },
        });
    this.output(policy, () =>
      this.table(
        [
          { rule: 'earning', value: policy.earnEnabled ? `on, ${policy.defaultEarnRateBp / 100}% on purchase decision` : 'off' },
          { rule: 'validity', value: policy.validityDays === null ? 'none set' : `${policy.validityDays} days` },
          {
            rule: 'use',
            value: policy.useEnabled ? `on, from ${policy.minUseAmount.toLocaleString('ko-KR')}원, up to ${policy.maxUseRateBp / 100}% of a payment` : 'off',
          },
        ],
        ['rule', 'value'],
      ),
    );
  }
}
