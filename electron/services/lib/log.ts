import fs from 'node:fs';
import path from 'node:path';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

export interface LogSink {
  write(line: string): void;
}

const SECRET_PATTERNS: Array<[RegExp, string]> = [
  [/(\btoken=)[A-Za-z0-9._~+/-]+/gi, '$1[redacted]'],
  [/(\bBearer\s+)[A-Za-z0-9._~+/=-]+/gi, '$1[redacted]'],
  [/("?(?:password|passphrase|secret|token|client-key-data|client-certificate-data)"?\s*[:=]\s*"?)[^"\s,}]+/gi, '$1[redacted]'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, '[redacted private key]'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, '[redacted jwt]'],
];

/** Masks secrets a log line might carry by accident. Logs are never the place for a secret. */
export function scrubLogText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A sink that appends JSON lines to `<dir>/windeck.log`, created on first write. */
export function fileSink(dir: string): LogSink {
  let fd: number | null = null;
  return {
    write(line) {
      try {
        if (fd === null) {
          fs.mkdirSync(dir, { recursive: true });
          fd = fs.openSync(path.join(dir, 'windeck.log'), 'a');
        }
        fs.writeSync(fd, line + '\n');
      } catch {
        // Logging must never break the product.
      }
    },
  };
}

export const nullSink: LogSink = { write: () => undefined };

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Structured, redacting logger: `createLogger(sink, 'ssh').info('connected', { node })`. */
export function createLogger(sink: LogSink, scope = 'windeck', minLevel: LogLevel = 'info', now: () => number = Date.now): Logger {
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < ORDER[minLevel]) return;
    let line: string;
    try {
      line = JSON.stringify({ at: new Date(now()).toISOString(), level, scope, message, ...(fields ?? {}) });
    } catch {
      line = JSON.stringify({ at: new Date(now()).toISOString(), level, scope, message });
    }
    sink.write(scrubLogText(line));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (child) => createLogger(sink, `${scope}:${child}`, minLevel, now),
  };
}
