import { z } from 'zod';
import { isoAt } from '../../../db/clock.js';
import { instant } from '../../../server/responses.js';
import type { deployments, DeploymentStep } from '../schema.js';

export const deploymentSchema = z.object({
  status: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED']),
  steps: z.array(z.object({ name: z.enum(['SITE', 'UPLOAD', 'PUBLISH']), status: z.enum(['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED']) })),
  log: z.array(z.string()),
  errorCode: z.string().nullable(),
  buildId: z.string().nullable(),
  updatedAt: instant,
});

export function presentDeployment(d: typeof deployments.$inferSelect): z.output<typeof deploymentSchema> {
  return { status: d.status, steps: d.steps, log: d.log, errorCode: d.errorCode, buildId: d.buildId, updatedAt: isoAt(d.updatedAt) };
}

export const stepsWith = (steps: DeploymentStep[], name: DeploymentStep['name'], status: DeploymentStep['status']) =>
  steps.map((s) => (s.name === name ? { ...s, status } : s));
