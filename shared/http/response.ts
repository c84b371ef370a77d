import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { AppError } from '../errors';

export type HttpResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
};

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(body),
  };
}

export const ok = (body: unknown) => json(200, body);
export const created = (body: unknown) => json(201, body);

/** The error envelope, or the flat `{error}` body of a missing required field on create. */
export function errorResponse(error: AppError, requestId: string, now: Date): HttpResult {
  if (error.extra.flat) return json(error.statusCode, { error: error.message }, { ...error.extra.headers });
  return json(
    error.statusCode,
    {
      success: false,
      error: {
        code: error.code,
        message: error.message,
        statusCode: error.statusCode,
        requestId,
        ...(error.extra.errors ? { errors: error.extra.errors } : {}),
        ...(error.extra.details ? { details: error.extra.details } : {}),
        ...(error.extra.suggestion ? { suggestion: error.extra.suggestion } : {}),
      },
      timestamp: now.toISOString(),
    },
    { ...error.extra.headers },
  );
}
