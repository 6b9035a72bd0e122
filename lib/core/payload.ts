// How large a request body can be once API Gateway has handed it to Lambda. The arithmetic lives here so that the
// contracts (documentation) and the HTTP layer (the 413) state the same numbers.
//
// A synchronous Lambda invocation carries at most 6 MB (6,291,456 bytes) of event: the body plus the headers,
// query and request context around it. An HTTP API passes text bodies (application/json) as they are and
// base64-encodes binary ones (multipart/form-data), 4 characters for every 3 bytes. A larger request never reaches
// the function: API Gateway answers it with its own error.

/** Lambda's request payload limit for a synchronous invocation: the whole event (6 MB). */
export const LAMBDA_REQUEST_PAYLOAD_BYTES = 6 * 1024 * 1024;

/**
 * Room kept for the rest of the event: API Gateway caps the request line and headers at 10 KB, and the event
 * repeats some of them (cookies, query parameters) besides the request context.
 */
export const EVENT_ENVELOPE_BYTES = 32 * 1024;

/** Largest JSON (text) body that fits in the invocation: 6,258,688 bytes. */
export const MAX_TEXT_BODY_BYTES = LAMBDA_REQUEST_PAYLOAD_BYTES - EVENT_ENVELOPE_BYTES;

/** Largest multipart (binary, so base64-encoded) body that fits: 3/4 of the text limit, 4,694,016 bytes (~4.48 MiB). */
export const MAX_BINARY_BODY_BYTES = Math.floor(MAX_TEXT_BODY_BYTES / 4) * 3;
