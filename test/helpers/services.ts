import { createServices, type Services, type ServicesConfig } from '../../electron/services/create-services';
import { nullSink } from '../../electron/services/lib/log';
import { tempDir } from './temp-dir';

/** Services over a fresh temp home, for in-process contract tests. */
export function testServices(overrides: Partial<ServicesConfig> = {}): { services: Services; home: string; cleanup(): Promise<void> } {
  const tmp = tempDir();
  const services = createServices({ home: tmp.dir, host: 'test', version: '0.0.0-test', logSink: nullSink, ...overrides });
  return {
    services,
    home: tmp.dir,
    async cleanup() {
      await services.dispose();
      tmp.cleanup();
    },
  };
}
