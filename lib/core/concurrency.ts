// Bounded fan-out: many independent requests at once without opening one socket per item (the SDK's agent
// queues the rest, and a Lambda's sockets and memory are finite).

/** `fn` over every item, at most `limit` at a time; results in the items' order. */
export const mapConcurrent = async <T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> => {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
};
