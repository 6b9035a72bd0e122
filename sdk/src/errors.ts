/** A non-2xx answer of the API, from its standard error body `{"error": {code, message, details, requestId}}`. */
export class ArcadiaError extends Error {
  override readonly name = 'ArcadiaError';
  constructor(
    /** HTTP status; 0 when no answer arrived (network error, timeout). */
    readonly status: number,
    /** The API's error code (`VALIDATION_ERROR`, `RATE_LIMITED`, `FLUSH_OUT_OF_ORDER`, ...), `NETWORK_ERROR` without an answer. */
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly requestId?: string,
    /** Seconds the API asked to wait (`Retry-After` of a 429). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: { code?: string; message?: string; details?: unknown; requestId?: string };
}

/** Seconds to wait from a `Retry-After` header (delta-seconds or an HTTP date). */
export const retryAfterSeconds = (value: string | null, now = Date.now()): number | undefined => {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
};

/** The typed error of an error response (reads its body). */
export const errorOf = async (response: Response): Promise<ArcadiaError> => {
  const body = (await response.json().catch(() => ({}))) as ErrorBody;
  const error = body.error ?? {};
  return new ArcadiaError(
    response.status,
    error.code ?? `HTTP_${response.status}`,
    error.message ?? `HTTP ${response.status}`,
    error.details,
    error.requestId ?? response.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds(response.headers.get('retry-after')),
  );
};

/** The error for a request that got no answer. */
export const networkError = (cause: unknown): ArcadiaError =>
  new ArcadiaError(0, 'NETWORK_ERROR', cause instanceof Error ? cause.message : String(cause));
