import { z } from 'zod';
import { isRealDate } from '../kernel/dates.js';
import { fail, validationFailed, type FieldError } from './errors.js';

const TYPE_NAMES: Record<string, string> = {
  string: '문자열',
  number: '숫자',
  int: '정수',
  boolean: '불리언',
  object: '객체',
  array: '배열',
  null: 'null',
};

/** zod issues as `fieldErrors` of spec 01 §7: one entry per field, with a stable code and a Korean message. */
export function toFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    const at = (key?: string) => (key === undefined ? path : path ? `${path}.${key}` : key);
    // A missing field is REQUIRED whatever its type (an enum, a union, …) would have demanded.
    if (issue.code !== 'unrecognized_keys' && issue.code !== 'custom' && 'input' in issue && issue.input === undefined) {
      out.push({ field: path, code: 'REQUIRED', message: '필수 항목입니다.' });
      continue;
    }
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) out.push({ field: at(key), code: 'UNKNOWN_FIELD', message: '알 수 없는 필드입니다. 이 필드는 받지 않습니다.' });
        break;
      case 'invalid_type':
        out.push({ field: path, code: 'INVALID_TYPE', message: `${TYPE_NAMES[issue.expected] ?? issue.expected} 형식이어야 합니다.` });
        break;
      case 'too_small':
        out.push({
          field: path,
          code: issue.origin === 'string' || issue.origin === 'array' ? 'TOO_SHORT' : 'TOO_SMALL',
          message:
            issue.origin === 'string'
              ? `${issue.minimum}자 이상이어야 합니다.`
              : issue.origin === 'array'
                ? `${issue.minimum}개 이상이어야 합니다.`
                : `${issue.minimum} 이상이어야 합니다.`,
        });
        break;
      case 'too_big':
        out.push({
          field: path,
          code: issue.origin === 'string' || issue.origin === 'array' ? 'TOO_LONG' : 'TOO_LARGE',
          message:
            issue.origin === 'string'
              ? `${issue.maximum}자 이하여야 합니다.`
              : issue.origin === 'array'
                ? `${issue.maximum}개 이하여야 합니다.`
                : `${issue.maximum} 이하여야 합니다.`,
        });
        break;
      case 'invalid_value':
        out.push({ field: path, code: 'INVALID_VALUE', message: `허용되지 않는 값입니다. 허용 값: ${issue.values.map(String).join(', ')}` });
        break;
      case 'invalid_format':
        out.push({ field: path, code: 'INVALID_FORMAT', message: `형식이 올바르지 않습니다 (${issue.format}).` });
        break;
      case 'not_multiple_of':
        out.push({ field: path, code: 'NOT_MULTIPLE_OF', message: `${issue.divisor}의 배수여야 합니다.` });
        break;
      case 'custom':
        out.push({ field: path, code: (issue.params?.code as string) ?? 'INVALID', message: issue.message });
        break;
      default:
        out.push({ field: path, code: 'INVALID', message: '값이 올바르지 않습니다.' });
    }
  }
  return out;
}

/** Field code of a well-formed date that names no day (2026-02-30, 9200-20-25): spec 01 §7 makes it 400 `INVALID_PARAMETER`. */
export const NONEXISTENT_DATE = 'NONEXISTENT_DATE';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^(\d{4}-\d{2}-\d{2})T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const nonexistent = { message: '존재하지 않는 날짜입니다.', params: { code: NONEXISTENT_DATE } };

/** Every calendar date a request carries (query or body): `YYYY-MM-DD`, and a day that exists. */
export const dateInput = z
  .string()
  .regex(DATE, 'YYYY-MM-DD 형식이어야 합니다.')
  .refine((value) => !DATE.test(value) || isRealDate(value), nonexistent)
  .meta({ format: 'date' });

/** Every instant a request carries: ISO 8601 date-time with `Z` or an offset, on a day that exists. */
export const instantInput = z
  .string()
  .regex(INSTANT, 'ISO 8601 시각(예: 2026-11-24T09:00:00+09:00)이어야 합니다.')
  .refine((value) => !INSTANT.test(value) || isRealDate(value.slice(0, 10)), nonexistent)
  .meta({ format: 'date-time' });

/**
 * Parses a request part. A schema whose refinement or transform throws (a defect of the schema, such as a
 * `new URL()` on unchecked text) still only ever answers 400: checking bad input must not become a 500.
 */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown): T {
  let result: z.ZodSafeParseResult<T>;
  try {
    result = schema.safeParse(value, { reportInput: true });
  } catch (error) {
    console.error('[svc] a request schema threw while checking its input (answered 400):', error);
    throw validationFailed([{ field: '', code: 'UNCHECKABLE', message: '값을 검사할 수 없습니다. 형식을 확인하세요.' }]);
  }
  if (result.success) return result.data;
  const { issues } = result.error;
  // A form that is well formed but for a day that does not exist is INVALID_PARAMETER, as in spec 01 §7.
  if (issues.every((issue) => issue.code === 'custom' && issue.params?.code === NONEXISTENT_DATE)) {
    const [first] = issues;
    throw fail(400, 'INVALID_PARAMETER', { field: first.path.map(String).join('.'), value: valueAt(value, first.path), reason: NONEXISTENT_DATE });
  }
  throw validationFailed(toFieldErrors(issues));
}

const valueAt = (value: unknown, path: readonly PropertyKey[]) =>
  path.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined), value);

/** Query strings arrive as strings: one value per key (a repeated key is a form error, not a silent pick). */
export function queryObject(params: URLSearchParams, ignored: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  const repeated: FieldError[] = [];
  for (const [key, value] of params) {
    if (ignored.has(key)) continue;
    if (key in out) repeated.push({ field: key, code: 'REPEATED', message: '한 번만 보낼 수 있는 파라미터입니다. 여러 값은 쉼표로 구분하세요.' });
    out[key] = value;
  }
  if (repeated.length) throw validationFailed(repeated);
  return out;
}
