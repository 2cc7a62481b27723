/**
 * Tunables, with their unit in the name. One place, so timeouts and caps are easy to find and to test.
 */
export const OPERATION_DEFAULT_TIMEOUT_MS = 10 * 60_000;
export const OPERATION_PROGRESS_MIN_INTERVAL_MS = 100;
export const OPERATION_HISTORY_KEEP_COUNT = 500;
export const OPERATION_SHUTDOWN_GRACE_MS = 5_000;
export const STORE_BUSY_TIMEOUT_MS = 5_000;
export const WEB_TOKEN_BYTES = 32;
export const WEB_MAX_FRAME_BYTES = 8 * 1024 * 1024;
export const DEMO_DEFAULT_NODE_COUNT = 8;
export const DEMO_DEFAULT_WINDOWS_COUNT = 5;
/** Renderer: first reconnect delay of the WebSocket transport; doubles per attempt up to the max. */
export const UI_RECONNECT_MIN_MS = 500;
export const UI_RECONNECT_MAX_MS = 15_000;
/** Renderer: a call queued while the socket is down fails with UNREACHABLE after this long. */
export const UI_CALL_QUEUE_TIMEOUT_MS = 20_000;
/** Renderer: `store:changed` bursts are folded into one re-read after this quiet time, and at least this often. */
export const UI_REFRESH_DEBOUNCE_MS = 250;
export const UI_REFRESH_MAX_WAIT_MS = 2_000;
/** Renderer: how often relative ages ("synced 3 min ago") are re-rendered. Not a data poll. */
export const UI_AGE_TICK_MS = 15_000;
