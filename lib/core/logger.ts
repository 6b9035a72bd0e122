import { Logger } from '@aws-lambda-powertools/logger';

/** The one structured logger of the service. Never log secrets, auth headers or request bodies. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'arcadia' });
