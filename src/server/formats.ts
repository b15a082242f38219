import { z } from 'zod';

/** Request field formats shared by modules, written so the OpenAPI document states what they accept. */

/**
 * A query parameter holding a comma-separated list (`?types=A,B`; blanks around items are ignored). The
 * document shows it as an array of `item` in `form` style without `explode`, which is this exact syntax.
 */
export const commaList = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1));

/** `scheme://host[:port]` as a browser writes an origin: lower-case host, no default port, no path or slash. */
const ORIGIN_SHAPE = /^https?:\/\/(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::[1-9][0-9]{0,4})?$/;

/** The shape of an https origin only (payment return origins): ORIGIN_SHAPE without `http`. */
export const HTTPS_ORIGIN_PATTERN = ORIGIN_SHAPE.source.replace('^https?', '^https');

const isOwnOrigin = (value: string) => {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
};

/** A web origin (`https://shop.example.com`, `http://localhost:3000`): the pattern says its shape, the URL parser has the last word. */
export const webOrigin = z
  .string()
  .max(2048)
  .regex(ORIGIN_SHAPE, { message: 'scheme://host[:port] 형식의 출처여야 합니다.', abort: true })
  .refine(isOwnOrigin, { message: 'scheme://host[:port] 형식의 출처여야 합니다.', params: { code: 'INVALID_FORMAT' } })
  .meta({ format: 'uri' });

/**
 * JSON Schema statements of rules a refinement checks: zod's conversion cannot see into a refinement, so a
 * schema refined with one of these rules carries its statement with `.meta(…)` and the OpenAPI document
 * says what the service enforces. Several on one schema go in `allOf`.
 */
export const stated = {
  /** Exactly one of the fields is sent. */
  exactlyOne: (...keys: string[]) => ({ oneOf: keys.map((key) => ({ required: [key] })) }),
  /** At least one of the fields is sent. */
  atLeastOne: (...keys: string[]) => ({ anyOf: keys.map((key) => ({ required: [key] })) }),
  /** Not both fields. */
  notBoth: (a: string, b: string) => ({ not: { required: [a, b] } }),
  /** Where `field` is sent and one of `values`, the object also fits `then`; elsewhere (absent too) `otherwise`. */
  when: (field: string, values: readonly (string | number | boolean)[], then: Record<string, unknown>, otherwise?: Record<string, unknown>) => ({
    if: { properties: { [field]: values.length === 1 ? { const: values[0] } : { enum: values } }, required: [field] },
    then,
    ...(otherwise ? { else: otherwise } : {}),
  }),
  /** An array without repeated items. */
  uniqueItems: { uniqueItems: true },
};
