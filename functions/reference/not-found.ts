import { notFoundContract } from '../../lib/api/reference/index.js';
import { AppError } from '../../lib/core/errors.js';
import { route } from '../../lib/http/route.js';

export const handler = route(notFoundContract, async () => {
  throw new AppError('NOT_FOUND', 'No such route');
});
