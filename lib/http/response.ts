/** A handler result with an explicit status or extra headers; plain return values mean the contract's success status. */
export class HttpResponse<T = unknown> {
  constructor(
    readonly status: number,
    readonly body: T,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** Build a response with a status other than the contract's default. */
export const respond = <T>(status: number, body: T, headers: Record<string, string> = {}): HttpResponse<T> =>
  new HttpResponse(status, body, headers);
