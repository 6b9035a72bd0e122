import { route } from '../../lib/http/route.js';
import { getLaunchJob, getLaunchJobContract } from '../../lib/launcher/index.js';

export const handler = route(getLaunchJobContract, async ({ params }) => ({
  data: await getLaunchJob(params.jobId),
}));
