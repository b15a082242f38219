import { errorMessage } from './messages.js';

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/** An error the API answers with: status, spec code, optional details and field errors. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly details: Record<string, unknown> | null = null,
    readonly fieldErrors: FieldError[] = [],
    message?: string,
    /** Headers the answer carries (e.g. `Retry-After` of a 429). */
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? errorMessage(code, status));
  }
}

export const fail = (status: number, code: string, details?: Record<string, unknown>) => new ApiError(status, code, details ?? null);

export const notFound = (what = 'NOT_FOUND') => new ApiError(404, what);

export const validationFailed = (fieldErrors: FieldError[]) => new ApiError(400, 'VALIDATION_FAILED', null, fieldErrors);

export const fieldError = (field: string, code: string, message?: string): FieldError => ({
  field,
  code,
  message: message ?? errorMessage(code, 400),
});
