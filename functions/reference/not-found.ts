import { AppError } from '../../lib/http/errors.js';
import { httpHandler } from '../../lib/http/handler.js';
import { notFoundContract } from '../../lib/reference/contracts.js';

export const handler = httpHandler(notFoundContract, async () => {
  throw new AppError('NOT_FOUND', 'No such route');
});
