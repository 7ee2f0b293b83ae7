import { cleanupAfterEach } from './cleanupAfterEach.js';
import { type Served, serve } from './httpServerFixture.js';

/** Returns a function that starts a served runtime (see `serve`) which is closed after the test that started it. */
export function serverPerTest(): (options?: Parameters<typeof serve>[0]) => Promise<Served> {
  const later = cleanupAfterEach();
  return async (options) => {
    const running = await serve(options);
    later(() => running.close());
    return running;
  };
}
