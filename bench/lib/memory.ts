// Peak resident memory of the current process. Linux keeps the high-water mark (VmHWM) itself, so no sampler
// has to run while a synchronous build blocks the event loop; writing "5" to /proc/self/clear_refs resets it
// (Linux ≥ 4.0), which lets a benchmark measure the peak of one phase after its input is built.
import { readFileSync, writeFileSync } from 'node:fs';

function statusField(field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resets the kernel's peak-RSS counter to the current RSS. Returns false where unsupported. */
export function resetPeakRss(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak RSS in bytes since start or the last successful resetPeakRss(). */
export function peakRssBytes(): number {
  return statusField('VmHWM') ?? process.resourceUsage().maxRSS * 1024;
}

export function rssBytes(): number {
  return statusField('VmRSS') ?? process.memoryUsage().rss;
}

/**
 * Samples RSS every `intervalMs` from a timer (for asynchronous work, where the event loop runs). Synchronous
 * work blocks the timer, so prefer peakRssBytes() around it.
 */
export function startRssSampler(intervalMs = 20): { stop(): number } {
  let peak = rssBytes();
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes());
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssBytes());
    },
  };
}
