/** The UTC day of an instant, `yyyy-mm-dd` ("today" is always the UTC day). */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The clock the use cases are given (tests give theirs). */
export const now = (): Date => new Date();
