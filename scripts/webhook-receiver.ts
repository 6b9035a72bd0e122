// `npm run webhook-receiver -- [--port 8787] [--secret whsec_…]`: a local webhook receiver that prints each delivery
// as it arrives, verified with the `standardwebhooks` library when given the endpoint's secret. With `npm run dev`
// running, register http://localhost:<port>/ as an endpoint of your game (docs/webhooks.md, "Local") and its
// events arrive here within seconds.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '8787' }, secret: { type: 'string' } },
});

createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const headers = {
      'webhook-id': String(request.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
    };
    let verdict = 'unverified (no --secret)';
    if (values.secret) {
      try {
        new Webhook(values.secret).verify(body, headers);
        verdict = 'signature verified';
      } catch (error) {
        verdict = `SIGNATURE REFUSED: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    console.log(`${new Date().toISOString()} ${headers['webhook-id']} (${verdict})\n${body}\n`);
    response.writeHead(verdict.startsWith('SIGNATURE REFUSED') ? 400 : 204).end();
  });
}).listen(Number(values.port), '127.0.0.1', () => {
  console.log(`webhook receiver on http://localhost:${values.port}/ (Ctrl-C stops it)`);
});
