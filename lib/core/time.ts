/** The UTC day of an instant, `yyyy-mm-dd` ("today" is the UTC day, DESIGN §2). */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The clock the use cases are given (tests give theirs). */
export const now = (): Date => new Date();
