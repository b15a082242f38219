import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService, type TestService } from '../helpers/service.js';
import { combinations } from '../../src/modules/catalog/product-writes.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

/** Up to 3 axes of distinct short values; sizes reach past 500 combinations so refusals are exercised too. */
const axes = fc
  .uniqueArray(fc.constantFrom('색상', '사이즈', '소재', '길이'), { minLength: 0, maxLength: 3 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) => fc.uniqueArray(fc.stringMatching(/^[a-z가-힣0-9]{1,4}$/), { minLength: 1, maxLength: 10 }).map((values) => ({ name, values }))),
    ),
  );

const cartesian = (a: { values: string[] }[]) => a.reduce<string[][]>((acc, axis) => acc.flatMap((p) => axis.values.map((v) => [...p, v])), [[]]);
const size = (a: { values: string[] }[]) => a.reduce((n, x) => n * x.values.length, 1);

test('combinations(): exactly the cartesian product, every combination once', () => {
  fc.assert(
    fc.property(axes, (a) => {
      const combos = combinations(a);
      assert.is(combos.length, size(a));
      assert.is(new Set(combos.map((c) => JSON.stringify(c))).size, combos.length);
      assert.ok(combos.every((c) => c.length === a.length && c.every((v, i) => a[i].values.includes(v))));
    }),
    { numRuns: 500 },
  );
});

test('over HTTP: a random structure yields exactly its cartesian product, never more than 500; a change keeps survivors', async () => {
  await fc.assert(
    fc.asyncProperty(axes, axes, async (first, second) => {
      const res = await svc.api('POST', '/v1/products', { body: { name: 'prop', salePrice: 1000, options: first } });
      if (size(first) > 500) {
        assert.is(res.status, 400);
        assert.is(res.body.error.fieldErrors[0].code, 'TOO_MANY_COMBINATIONS');
        return;
      }
      assert.is(res.status, 201, JSON.stringify(res.body));
      assert.equal(
        res.data.variants.map((v: any) => v.optionValues),
        cartesian(first),
      );
      const ids = new Map(res.data.variants.map((v: any) => [JSON.stringify(v.optionValues), v.variantId]));
      const changed = await svc.api('PUT', `/v1/products/${res.data.productId}/options`, { body: { options: second } });
      if (size(second) > 500) {
        assert.is(changed.status, 400);
        return;
      }
      assert.is(changed.status, 200, JSON.stringify(changed.body));
      assert.equal(
        changed.data.variants.map((v: any) => v.optionValues),
        cartesian(second),
      );
      for (const v of changed.data.variants) {
        const before = ids.get(JSON.stringify(v.optionValues));
        if (before) assert.is(v.variantId, before);
        else assert.ok(![...ids.values()].includes(v.variantId));
      }
    }),
    { numRuns: 25 },
  );
});

test.run();
