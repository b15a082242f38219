import type { builds, DependencyFinding } from '../schema.js';

/** How a build stage fails: for good (`BuildFailure`), or for now (`TryLater`). */

export type Build = typeof builds.$inferSelect;
export type Stage = NonNullable<Build['failureStage']>;

/** A stage's failure: the build ends FAILED with this stage and code. */
export class BuildFailure extends Error {
  constructor(
    readonly stage: Stage,
    readonly code: string,
    message: string,
    readonly dependencies?: { rejected: DependencyFinding[]; warnings: DependencyFinding[] },
  ) {
    super(message);
  }
}
/** The advisory source is down but still within its grace period: the build goes back to the queue. */
export class TryLater extends Error {}
