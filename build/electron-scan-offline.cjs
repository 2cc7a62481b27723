// Preloaded (node --require) into the electronegativity worker of build/electron-scan.mjs. The tool fetches
// translations and Electron release notes with `got` on every run; Windeck's checks never dial out, so `got` is
// replaced by a function that fails at once, and any socket to a non-loopback address is refused as a backstop.
'use strict';
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload hook by nature */
const Module = require('node:module');
const net = require('node:net');

function offline(url) {
  if (process.env.WINDECK_SCAN_NET_LOG)
    require('node:fs').appendFileSync(process.env.WINDECK_SCAN_NET_LOG, `got ${String(url).slice(0, 200)} (answered offline)\n`);
  return Promise.reject(new Error('network disabled: the Windeck security scan runs offline'));
}
offline.get = offline;
offline.extend = () => offline;

const originalLoad = Module._load;
Module._load = function load(request, parent, isMain) {
  if (request === 'got') return offline;
  return originalLoad.call(this, request, parent, isMain);
};

function isLoopback(host) {
  return host === undefined || host === 'localhost' || /^127\./.test(host) || host === '::1';
}

const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  const first = args[0];
  const options = Array.isArray(first) ? first[0] : first;
  const host = typeof options === 'object' && options !== null ? (options.path ? undefined : options.host) : typeof args[1] === 'string' ? args[1] : undefined;
  if (!isLoopback(host)) {
    // Recorded for the scan report (which then fails): the offline wrapping missed a network path.
    if (process.env.WINDECK_SCAN_NET_LOG) require('node:fs').appendFileSync(process.env.WINDECK_SCAN_NET_LOG, `${host}\n`);
    throw new Error(`network disabled: the Windeck security scan refused a connection to ${host}`);
  }
  return originalConnect.apply(this, args);
};
