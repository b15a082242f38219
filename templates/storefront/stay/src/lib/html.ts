/**
 * HTML built only through `html` tagged templates: every interpolated value is escaped unless it is
 * itself the result of `html` (or `raw`), so product names, buyer input and API messages can never
 * inject markup.
 */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** Markup that is already safe (e.g. JSON embedded by `jsonScript`). Never pass buyer or API text. */
export const raw = (value: string) => new Html(value);

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Data for the client inside a `<script type="application/json">`: `<` escaped so no value can close the tag. */
export const jsonScript = (id: string, data: unknown) =>
  raw(`<script type="application/json" id="${escapeHtml(id)}">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`);
