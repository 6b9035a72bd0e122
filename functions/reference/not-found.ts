import { AppError } from '../../lib/core/errors.js';
import { notFoundContract } from '../../lib/http/reference/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(notFoundContract, async () => {
  throw new AppError('NOT_FOUND', 'No such route');
});
