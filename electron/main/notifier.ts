import type { EventName } from '../../shared/contract/events';
import { OperationProgress, TERMINAL_STATES } from '../../shared/domain/operation';
import { DESKTOP_NOTIFY_MIN_DURATION_MS } from '../../shared/domain/limits';

/**
 * Desktop notifications for long operations that finish while the user looks elsewhere. Fed by the services'
 * event stream; decides, and calls a `notify` port (Electron's Notification in main.ts, a recorder in tests).
 */
export interface OperationNotice {
  title: string;
  body: string;
  operationId: string;
}

export interface OperationNotifierOptions {
  isWindowFocused(): boolean;
  notify(notice: OperationNotice): void;
  minDurationMs?: number;
}

const OUTCOME: Readonly<Record<string, string>> = {
  succeeded: 'finished',
  failed: 'failed',
  'timed-out': 'timed out',
};

/** Remembers this many notified operations, so a repeated terminal event does not notify twice. */
const SEEN_LIMIT = 200;

export class OperationNotifier {
  private readonly seen = new Set<string>();
  private readonly minDurationMs: number;

  constructor(private readonly options: OperationNotifierOptions) {
    this.minDurationMs = options.minDurationMs ?? DESKTOP_NOTIFY_MIN_DURATION_MS;
  }

  /** What to show for this event, or null. Exported logic: terminal, long enough, not cancelled by the user. */
  noticeFor(event: EventName, payload: unknown): OperationNotice | null {
    if (event !== 'ops:progress') return null;
    const parsed = OperationProgress.safeParse(payload);
    if (!parsed.success) return null;
    const op = parsed.data;
    if (!TERMINAL_STATES.has(op.state) || op.state === 'cancelled') return null;
    if (op.at - op.startedAt < this.minDurationMs) return null;
    if (this.seen.has(op.operationId)) return null;
    const where = op.node ? ` on ${op.node}` : '';
    const body = op.state === 'succeeded' ? `${op.title}${where} is done.` : `${op.title}${where}: ${op.message ?? 'see Activity for details.'}`;
    return { title: `Windeck: ${op.title} ${OUTCOME[op.state] ?? op.state}`, body: body.slice(0, 300), operationId: op.operationId };
  }

  /** The event listener to subscribe to `services.events`. */
  readonly onEvent = (event: EventName, payload: unknown): void => {
    const notice = this.noticeFor(event, payload);
    if (!notice) return;
    this.seen.add(notice.operationId);
    if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value as string);
    if (this.options.isWindowFocused()) return;
    this.options.notify(notice);
  };
}
