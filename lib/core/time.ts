/** The UTC day of an instant, `yyyy-mm-dd` ("today" is always the UTC day). */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The clock the use cases are given (tests give theirs). */
export const now = (): Date => new Date();

/** Whether `day` is a real calendar day written `yyyy-mm-dd` (2026-02-30 is not). */
export const isCalendarDay = (day: string): boolean => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const at = Date.parse(`${day}T00:00:00.000Z`);
  return Number.isFinite(at) && new Date(at).toISOString().slice(0, 10) === day;
};
