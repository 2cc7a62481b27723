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
/** Web host uploads (browser import of a zip, folder or files): bytes and files per upload, and how long an
 * upload never diagnosed is kept under WINDECK_HOME/tmp/uploads. */
export const WEB_UPLOAD_MAX_BYTES = 1024 * 1024 * 1024;
export const WEB_UPLOAD_MAX_FILES = 20_000;
export const WEB_UPLOAD_BATCH_TTL_MS = 60 * 60_000;
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
/** Renderer: node deltas (`nodes:list { since }`) are read after this quiet time, and at least this often. */
export const UI_NODE_DELTA_DEBOUNCE_MS = 50;
export const UI_NODE_DELTA_MAX_WAIT_MS = 150;
/** Store: removed-node tombstones kept for `nodes:list { since }`; older cursors get a full answer. */
export const NODE_TOMBSTONES_MAX = 20_000;
/** Renderer: how often relative ages ("synced 3 min ago") are re-rendered. Not a data poll. */
export const UI_AGE_TICK_MS = 15_000;
/** Renderer: the report preview is re-rendered this long after the last keystroke. */
export const UI_REPORT_RENDER_DEBOUNCE_MS = 300;
/** Node transports (SSH/WinRM): per-stage defaults; each expiry raises TIMEOUT naming the stage. */
export const NODE_CONNECT_TIMEOUT_MS = 10_000;
export const NODE_CHANNEL_TIMEOUT_MS = 10_000;
export const NODE_COMMAND_TIMEOUT_MS = 60_000;
export const NODE_IDLE_TIMEOUT_MS = 30_000;
/** SSH keepalive: a silent peer is declared gone after interval x (count + 1). */
export const SSH_KEEPALIVE_INTERVAL_MS = 10_000;
export const SSH_KEEPALIVE_COUNT_MAX = 3;
/** Pooled SSH connections idle this long are closed; channels per connection (OpenSSH MaxSessions is 10). */
export const SSH_POOL_IDLE_MS = 60_000;
export const SSH_CHANNELS_PER_CONNECTION = 8;
/**
 * SSH key exchanges + logins in flight at once per pool. A fan-out to 200 nodes would otherwise run 32 handshakes'
 * signatures, verifications and key derivations in the same event-loop turns (issue 10 item 4: main event-loop
 * lag p99 <= 50 ms); on loopback and LANs the handshakes are CPU-bound, so a few at a time costs no wall time.
 */
export const SSH_HANDSHAKES_AT_ONCE = 6;
/** Console hosts load the SSH library this long after start-up, before the user's first probe needs it. */
export const SSH_PRELOAD_AFTER_START_MS = 3_000;
/** Compiled known_hosts host patterns kept (electron/services/transports/ssh/known-hosts.ts); cleared when full. */
export const KNOWN_HOSTS_COMPILED_PATTERNS_MAX = 10_000;
/**
 * SFTP download (pipelined READs, like ssh2 fastGet): the first READ size (less when the server's max read length
 * is smaller; later READs adapt down to a server that answers less, e.g. Windows OpenSSH 7.7's 64 KiB), the bytes
 * asked for at once (ssh2's SFTP channel window is 2 MiB) and the READs outstanding at most.
 */
export const SFTP_READ_CHUNK_BYTES = 256 * 1024;
export const SFTP_READ_BYTES_IN_FLIGHT = 2 * 1024 * 1024;
export const SFTP_READS_IN_FLIGHT = 32;
/** WinRM: OperationTimeout sent with each request (a Receive waits at most this long for output; capped by idle). */
export const WINRM_OPERATION_TIMEOUT_MS = 20_000;
/** WinRM: how much longer than OperationTimeout an answer may take before the listener counts as stalled. */
export const WINRM_HTTP_GRACE_MS = 10_000;
/** WinRM: time allowed to signal and delete a shell after a cancel, timeout or failure. */
export const WINRM_CLEANUP_TIMEOUT_MS = 10_000;
/** WinRM: MaxEnvelopeSize asked for (Windows' floor; its default MaxEnvelopeSizekb is 500). */
export const WINRM_MAX_ENVELOPE_BYTES = 153_600;
/** WinRM: stdin bytes per Send envelope. */
export const WINRM_STDIN_CHUNK_BYTES = 64 * 1024;
/** WinRM: authenticated connections kept per node, and how long an idle one is kept. */
export const WINRM_CHANNELS_PER_NODE = 4;
export const WINRM_POOL_IDLE_MS = 60_000;
/** Bounded fan-out across nodes. */
export const NODE_FANOUT_CONCURRENCY = 32;
/** Largest script output kept per run; beyond it the run fails with REMOTE_FAILED (huge output). */
export const NODE_OUTPUT_MAX_BYTES = 64 * 1024 * 1024;
/** Script arguments: longest single string and the whole encoded JSON. */
export const SCRIPT_ARG_MAX_CHARS = 260;
export const SCRIPT_ARGS_MAX_BYTES = 64 * 1024;
/** Probes: per-file cap for the files/logs probes, default log window. */
export const PROBE_FILE_MAX_BYTES = 1024 * 1024;
export const PROBE_LOG_MAX_BYTES = 2 * 1024 * 1024;
export const PROBE_LOG_WINDOW_MS = 2 * 60 * 60_000;
/** Desktop: an operation that ran at least this long notifies when it ends while the window is not focused. */
export const DESKTOP_NOTIFY_MIN_DURATION_MS = 5_000;
/** Desktop: quiet time after the last move/resize before the window state is written. */
export const DESKTOP_WINDOW_STATE_DEBOUNCE_MS = 500;
/** Desktop: files accepted in one drop onto the window. */
export const DESKTOP_DROP_MAX_FILES = 20;
/** Desktop: V8 semi-space cap of the window's renderer (--js-flags, electron/main/chromium-flags.ts; the bench reads it too). */
export const DESKTOP_RENDERER_MAX_SEMI_SPACE_MB = 2;
/** Restarts: cancellable countdown before the first change, and how long a restarted component must stay up. */
export const RESTART_GRACE_MS = 5_000;
export const RESTART_SETTLE_MS = 15_000;
/** Restarts: a plan may be executed this long after it was made (then: plan again). */
export const RESTART_PLAN_TTL_MS = 15 * 60_000;
/** Restarts: per-step limits (a service back to Running, a DaemonSet replacement Ready, a network recreated). */
export const RESTART_SERVICE_TIMEOUT_MS = 90_000;
export const RESTART_POD_REPLACE_TIMEOUT_MS = 180_000;
export const RESTART_NETWORK_WAIT_MS = 60_000;
export const RESTART_LOAD_BALANCER_WAIT_MS = 60_000;
export const RESTART_DRAIN_TIMEOUT_MS = 5 * 60_000;
/** Restarts: one read-only look at the node or cluster (pre-checks, polls, post-checks). */
export const RESTART_READ_TIMEOUT_MS = 30_000;
/** Restarts: how often state is polled while waiting or settling. */
export const RESTART_POLL_INTERVAL_MS = 1_000;
/** Restarts: after a cancel, one bounded look at the node so the outcome says what state it was left in. */
export const RESTART_CANCEL_CHECK_TIMEOUT_MS = 10_000;
/** Restarts: after the restart, how long to wait for the node to report Ready again. */
export const RESTART_NODE_READY_WAIT_MS = 60_000;
// Cluster inventory (electron/services/kube).
export const EXEC_PLUGIN_TIMEOUT_MS = 30_000;
export const EXEC_PLUGIN_OUTPUT_MAX_BYTES = 1024 * 1024;
export const KUBE_CONNECT_TIMEOUT_MS = 10_000;
export const KUBE_REQUEST_TIMEOUT_MS = 60_000;
export const KUBE_LIST_PAGE_SIZE = 500;
/** A watch silent (no event, no bookmark) for this long is treated as stalled. */
export const KUBE_WATCH_IDLE_MS = 40_000;
export const KUBE_WATCHDOG_INTERVAL_MS = 5_000;
/** Coalesced watch lines (newest per object, unparsed) held above this many characters are applied at once. */
export const KUBE_WATCH_COALESCE_MAX_CHARS = 64 * 1024 * 1024;
export const KUBE_BACKOFF_INITIAL_MS = 1_000;
export const KUBE_BACKOFF_MAX_MS = 30_000;
export const KUBE_WATCH_TIMEOUT_MIN_S = 300;
export const KUBE_WATCH_TIMEOUT_MAX_S = 600;
/** How often watched changes are written to the store (one short transaction per resource per flush). */
export const INVENTORY_FLUSH_INTERVAL_MS = 100;
/** While live, the cluster row's sync stamp is refreshed at most this often. */
export const INVENTORY_LIVE_STAMP_INTERVAL_MS = 5_000;
export const INVENTORY_SYNC_TIMEOUT_MS = 10 * 60_000;
// Offline diagnosis (electron/services/diagnose).
/** Files up to this size are read whole and run through every parser; bigger ones stream through the log scan. */
export const DIAGNOSE_FULL_PARSE_MAX_BYTES = 8 * 1024 * 1024;
/** Bytes of a big file read first to classify it. */
export const DIAGNOSE_HEAD_BYTES = 64 * 1024;
/** A streamed line longer than this is cut (a 1 GB file without line ends stays bounded). */
export const DIAGNOSE_LINE_MAX_CHARS = 64 * 1024;
/** Progress callbacks at most this often. */
export const DIAGNOSE_PROGRESS_INTERVAL_MS = 200;
/** Pasted text `diagnose:text` accepts (characters). */
export const DIAGNOSE_TEXT_MAX_CHARS = 16 * 1024 * 1024;
/** Live `windeck diagnose NODE` / `diagnose:node` as a whole (every probe has its own timeout too). */
export const DIAGNOSE_NODE_TIMEOUT_MS = 10 * 60_000;
// Bundles and reports (electron/services/bundle, shared/report).
/** GitHub takes attachments up to about 25 MB; a part is closed before it would pass this. */
export const BUNDLE_PART_MAX_BYTES = 24 * 1000 * 1000;
/** Tail kept per log file (uncompressed bytes). */
export const BUNDLE_LOG_MAX_BYTES = 8 * 1024 * 1024;
/** Config files (CNI, subnet.env, kubelet/kube-proxy configs) read up to this size. */
export const BUNDLE_FILE_MAX_BYTES = 1024 * 1024;
/** All logs of one node together are capped at this many bytes (newest files first). */
export const BUNDLE_NODE_LOGS_MAX_BYTES = 64 * 1024 * 1024;
/** Default `--since` window of `windeck collect`. */
export const BUNDLE_DEFAULT_SINCE_MS = 2 * 60 * 60_000;
/** Chunk size when streaming a file through redaction. */
export const BUNDLE_STREAM_CHUNK_BYTES = 512 * 1024;
/** Worker threads redacting and compressing streamed bundle entries in parallel (at most; fewer on fewer cores). */
export const BUNDLE_REDACT_WORKERS_MAX = 8;
/** zlib level of streamed log entries (deflate in the zip, or the recompressed .gz): 1 is ~3x faster than 6 for ~10% more bytes. */
export const BUNDLE_STREAM_DEFLATE_LEVEL = 1;
/** Whole collection (all nodes) must finish within this. */
export const BUNDLE_COLLECT_TIMEOUT_MS = 30 * 60_000;
/** Events kept per bundle (newest first). */
export const BUNDLE_EVENTS_MAX_COUNT = 2_000;
/** `kubectl version` may take this long before the API's /version is used instead. */
export const BUNDLE_KUBECTL_TIMEOUT_MS = 15_000;
/** Retry jobs for nodes that dropped out: first wait, doubling up to the max. */
export const BUNDLE_RETRY_INITIAL_MS = 60_000;
export const BUNDLE_RETRY_MAX_MS = 30 * 60_000;
export const BUNDLE_RETRY_MAX_ATTEMPTS = 48;
/** How often the retry worker looks for due jobs while the services run. */
export const BUNDLE_RETRY_POLL_MS = 30_000;
/** GitHub issue body limit (characters). */
export const REPORT_BODY_MAX_CHARS = 65_536;
/** Prefilled issues/new URLs are kept under this length (browsers and GitHub cut longer ones). */
export const REPORT_URL_MAX_CHARS = 8_000;
/** Log excerpt lines per finding and characters per excerpt in a report. */
export const REPORT_EXCERPT_MAX_LINES = 12;
export const REPORT_EXCERPT_MAX_CHARS = 2_000;
