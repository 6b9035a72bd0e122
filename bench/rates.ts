// Published on-demand prices, us-east-1, in one place: the cost bench (bench/cost.ts) and the cost page
// (docs/performance.md, "Cost") price everything with these. Dated: re-check them against the pages below
// before quoting a bill.
export const RATES = {
  asOf: '2026-11-26',
  region: 'us-east-1',
  dynamodb: {
    // On-demand, Standard table class, after the November 2024 price cut (-50 % on throughput).
    // https://aws.amazon.com/dynamodb/pricing/on-demand/
    perWriteRequestUnit: 0.625 / 1e6,
    perReadRequestUnit: 0.125 / 1e6,
    perGbMonth: 0.25,
  },
  lambda: {
    // https://aws.amazon.com/lambda/pricing/ (first pricing tier, arm64).
    perRequest: 0.2 / 1e6,
    perArmGbSecond: 0.0000133334,
  },
  // HTTP API, first 300 million requests a month. https://aws.amazon.com/api-gateway/pricing/
  apiGateway: { perHttpRequest: 1.0 / 1e6 },
  // Standard queue, per request (a send, a receive and a delete per message). https://aws.amazon.com/sqs/pricing/
  sqs: { perRequest: 0.4 / 1e6 },
  elastiCacheServerlessValkey: {
    // https://aws.amazon.com/elasticache/pricing/ (Valkey is priced 33 % under Redis OSS: $0.0034 and $0.125).
    perEcpu: 0.0023 / 1e6,
    perGbHour: 0.084,
    minimumGb: 0.1,
  },
  vpc: {
    // A Lambda in a VPC reaches the internet (chain RPC, identity provider, price feeds) through a NAT gateway,
    // one per AZ for availability; DynamoDB and S3 through free gateway endpoints.
    // https://aws.amazon.com/vpc/pricing/
    natGatewayPerHour: 0.045,
    natGatewayPerGb: 0.045,
  },
  solana: {
    // A signature's base fee; priority fees come on top (what the bench reads back from each transaction).
    lamportsPerSignature: 5_000,
    // Not a price: the SOL/USD used to show fees in dollars.
    assumedSolUsd: 150,
  },
} as const;

export const HOURS_PER_MONTH = 730;
