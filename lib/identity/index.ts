// Public surface of the identity domain: one identity per person across the other domains.
export { emptyOutcome, type MergeDeps, type MergeOutcome, mergeOwned, mergeSplit } from './merge.js';
