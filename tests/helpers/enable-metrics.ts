// Imported first by a test that reads the metrics handlers print: set before any module builds the Metrics
// instance (tests/setup-env.ts turns them off elsewhere).
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
