import { Args, Flags, type Command } from '@oclif/core';
import { ApiClient } from '../client/api-client.js';
import { ApiCommand } from './api-command.js';
import { UsageError } from './usage-error.js';

/**
 * Commands of whoever runs a deployment (not a store's seller): they call the operator API with the secret
 * `svc serve` was started with (SVC_OPERATOR_TOKEN), at SVC_API_URL or the profile's address.
 */
export abstract class OperatorCommand<T extends typeof Command> extends ApiCommand<T> {
  protected async operatorRequest<D = any>(method: 'POST' | 'DELETE', path: string, body: Record<string, unknown>): Promise<D> {
    const token = process.env.SVC_OPERATOR_TOKEN;
    if (!token) throw new UsageError('set SVC_OPERATOR_TOKEN to the operator secret the service was started with (svc serve reads it from the same variable)');
    const client = new ApiClient({ profile: this.profileName, apiUrl: process.env.SVC_API_URL ?? this.apiUrl, token });
    return (await client.request<D>(method, `/_operator/v1${path}`, { body })).data;
  }
}

export const operatorArgs = {
  site: { slug: Args.string({ description: "The site's address (slug)", required: true }) },
  store: { storeId: Args.string({ description: "The store's id", required: true }) },
};
export const reasonFlag = { reason: Flags.string({ description: 'Shown to the seller as suspension.reason (default OPERATOR)' }) };
