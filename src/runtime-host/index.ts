export { DEFAULT_LIMITS, RuntimeHost, type RuntimeHostOptions } from './host.js';
export { createGuardedFetch, type GuardedFetchOptions } from './fetch.js';
export * from './types.js';
