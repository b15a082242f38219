// An installation's settings against the running version's declarations: what is missing, how they show, patches.
import { validationFailed } from '../../server/errors.js';
import type { Manifest } from '../../kernel/app-manifest.js';
import type { SettingValue } from './schema.js';

export function missingSettings(manifest: Manifest, settings: Record<string, SettingValue>): string[] {
  return Object.entries(manifest.settings ?? {})
    .filter(([k, d]) => d.required && (settings[k] === undefined || settings[k] === ''))
    .map(([k]) => k);
}

/** Secret settings show only their first 4 characters once saved (spec 02 §2.2). */
export function presentSettings(manifest: Manifest, settings: Record<string, SettingValue>) {
  return Object.fromEntries(
    Object.entries(manifest.settings ?? {}).map(([k, d]) => {
      const v = settings[k];
      if (v === undefined) return [k, null];
      return [k, d.secret ? `${String(v).slice(0, 4)}${'*'.repeat(Math.max(String(v).length - 4, 4))}` : v];
    }),
  );
}

/** A settings patch against the running version's declarations: null clears, undeclared names and wrong types are refused. */
export function applySettingsPatch(manifest: Manifest, current: Record<string, SettingValue>, patch: Record<string, unknown>) {
  const declared = manifest.settings ?? {};
  const errors = [];
  const next = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    const def = declared[k];
    if (!def) errors.push({ field: `settings.${k}`, code: 'UNKNOWN_FIELD', message: '앱이 선언하지 않은 설정입니다.' });
    else if (v === null) delete next[k];
    else if (typeof v !== def.type) errors.push({ field: `settings.${k}`, code: 'INVALID_TYPE', message: `${def.type} 형식이어야 합니다.` });
    else next[k] = v as SettingValue;
  }
  if (errors.length) throw validationFailed(errors);
  return next;
}
