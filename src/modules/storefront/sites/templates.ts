import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { packageRoot } from '../../../paths.js';

export interface Template {
  templateId: string;
  name: string;
  description: string;
  templateVersion: string | null;
  dir: string;
}

export const templatesDir = join(packageRoot, 'templates', 'storefront');

/** Template projects shipped with svc (`templates/storefront/<id>/`), read once. */
export const templates: Template[] = existsSync(templatesDir)
  ? readdirSync(templatesDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(templatesDir, d.name, 'package.json')))
      .map((d) => {
        const manifest = JSON.parse(readFileSync(join(templatesDir, d.name, 'package.json'), 'utf8')) as {
          description?: string;
          displayName?: string;
          sayren?: { templateVersion?: unknown };
        };
        return {
          templateId: d.name,
          name: manifest.displayName ?? d.name,
          description: manifest.description ?? '',
          templateVersion: manifest.sayren?.templateVersion == null ? null : String(manifest.sayren.templateVersion),
          dir: join(templatesDir, d.name),
        };
      })
  : [];

export const templateSchema = z.object({ templateId: z.string(), name: z.string(), description: z.string(), templateVersion: z.string().nullable() });
export const presentTemplate = (t: Template): z.output<typeof templateSchema> => ({
  templateId: t.templateId,
  name: t.name,
  description: t.description,
  templateVersion: t.templateVersion,
});
