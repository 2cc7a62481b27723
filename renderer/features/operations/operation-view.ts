import { TERMINAL_STATES, type OperationProgress, type OperationRecord } from '../../../shared/domain/operation';

/** An operation as a screen shows it: the stored record with the newest pushed progress laid over it. */
export type OperationView = OperationRecord;

/** Newest wins by `at`; a terminal state is never replaced by a late non-terminal event. */
export function mergeProgress(record: OperationView | undefined, progress: OperationProgress): OperationView {
  if (!record) return { ...progress, finishedAt: TERMINAL_STATES.has(progress.state) ? progress.at : null };
  if (TERMINAL_STATES.has(record.state)) return record;
  if (progress.at < record.at) return record;
  return { ...record, ...progress, finishedAt: TERMINAL_STATES.has(progress.state) ? progress.at : record.finishedAt };
}

export function isTerminal(op: Pick<OperationView, 'state'>): boolean {
  return TERMINAL_STATES.has(op.state);
}

/** A freshly read stored record against what the screen has: the stored outcome is final, else newer wins. */
export function mergeRecord(current: OperationView | null, record: OperationView): OperationView {
  if (!current || isTerminal(record)) return record;
  if (isTerminal(current)) return current;
  return record.at >= current.at ? record : current;
}
