/**
 * Scripted faults of the simulated API server. A fault matches requests (by resource, list/watch/get, path
 * substring) and applies to the next `times` of them.
 */

export interface FaultMatch {
  /** Resource plural (`pods`, `nodes`); any when absent. */
  resource?: string;
  /** Request kind; any when absent. `other` = discovery, /version and anything else. */
  verb?: 'list' | 'watch' | 'get' | 'other';
  /** Substring of the request URL. */
  path?: string;
}

export type FaultSpec =
  /** Answer with this HTTP status and a kube Status body (500, 503, 401, 403, 429...). */
  | { kind: 'status'; code: number; message?: string }
  /** 410 Gone: as HTTP status (`http`), or for watches as an in-stream ERROR event (`stream`, default). */
  | { kind: 'gone'; mode?: 'http' | 'stream' }
  /** Accept the request, send headers (watch) and then nothing at all, until the client gives up. */
  | { kind: 'stall' }
  /** Watch: send these lines (default: broken JSON) before the real events. */
  | { kind: 'garbage'; lines?: string[] }
  /** Delay the answer (and each list chunk) by `delayMs`. */
  | { kind: 'slow'; delayMs: number }
  /** Cut the connection after the headers. */
  | { kind: 'drop' };

export interface Fault {
  id: number;
  match: FaultMatch;
  spec: FaultSpec;
  /** Remaining applications; Infinity for "until removed". */
  remaining: number;
  hits: number;
}

export const DEFAULT_GARBAGE_LINES = ['{"type":"MODIFIED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"trunc', 'this is not json', '{"type":"ADDED"}'];

export class FaultPlan {
  private readonly faults: Fault[] = [];
  private nextId = 1;

  /** Add a fault for the next `times` matching requests (default: every one until removed). */
  add(match: FaultMatch, spec: FaultSpec, times = Infinity): Fault {
    const fault: Fault = { id: this.nextId++, match, spec, remaining: times, hits: 0 };
    this.faults.push(fault);
    return fault;
  }

  remove(fault: Fault | number): void {
    const id = typeof fault === 'number' ? fault : fault.id;
    const at = this.faults.findIndex((f) => f.id === id);
    if (at >= 0) this.faults.splice(at, 1);
  }

  clear(): void {
    this.faults.length = 0;
  }

  list(): readonly Fault[] {
    return this.faults;
  }

  /** The faults that apply to this request (consumed), in the order they were added. */
  take(request: { resource: string | null; verb: FaultMatch['verb']; url: string }): FaultSpec[] {
    const out: FaultSpec[] = [];
    for (const f of [...this.faults]) {
      if (f.match.resource && f.match.resource !== request.resource) continue;
      if (f.match.verb && f.match.verb !== request.verb) continue;
      if (f.match.path && !request.url.includes(f.match.path)) continue;
      f.hits++;
      f.remaining--;
      if (f.remaining <= 0) this.remove(f);
      out.push(f.spec);
    }
    return out;
  }
}
