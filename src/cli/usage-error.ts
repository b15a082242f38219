/** Wrong or missing input from the person or script running the command: exit code 2. */
export class UsageError extends Error {}
