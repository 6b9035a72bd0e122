import { route } from '../../lib/http/route.js';
import { getLaunchJobContract } from '../../lib/launcher/contracts.js';
import { getLaunchJob } from '../../lib/launcher/service.js';

export const handler = route(getLaunchJobContract, async ({ params }) => ({
  data: await getLaunchJob(params.jobId),
}));
