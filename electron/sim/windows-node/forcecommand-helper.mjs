#!/usr/bin/env node
/* global process, Buffer */
// sshd ForceCommand helper for the Windows node simulator (see command-relay.ts).
// Usage (in sshd_config): ForceCommand /abs/node /abs/forcecommand-helper.mjs 127.0.0.1:PORT
// Forwards $SSH_ORIGINAL_COMMAND and stdin to the relay and plays back stdout, stderr and the exit code.
// A dropped-connection answer ends this process abruptly, so sshd closes the channel without an exit status.
import net from 'node:net';

const target = process.argv[2] ?? '';
const m = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}):(\d+)$/.exec(target);
if (!m) {
  process.stderr.write('forcecommand-helper: relay address must be 127.x.y.z:PORT\n');
  process.exit(255);
}
const command = process.env.SSH_ORIGINAL_COMMAND ?? '';
const socket = net.connect(Number(m[2]), m[1]);
socket.on('error', (e) => {
  process.stderr.write(`forcecommand-helper: relay unreachable: ${e.message}\n`);
  process.exit(255);
});
socket.on('connect', () => {
  socket.write(JSON.stringify({ command, user: process.env.USER ?? '', connection: process.env.SSH_CONNECTION ?? '' }) + '\n');
  process.stdin.pipe(socket, { end: true });
});
let buf = Buffer.alloc(0);
let exitCode = null;
socket.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  while (buf.length >= 5) {
    const type = buf.readUInt8(0);
    const len = buf.readUInt32BE(1);
    if (buf.length < 5 + len) break;
    const payload = buf.subarray(5, 5 + len);
    buf = buf.subarray(5 + len);
    if (type === 1) process.stdout.write(payload);
    else if (type === 2) process.stderr.write(payload);
    else if (type === 3) exitCode = JSON.parse(payload.toString('utf8'));
  }
});
socket.on('close', () => {
  if (!exitCode) process.exit(255);
  if (exitCode.dropConnection) {
    // Kill our parent session process: sshd then drops the channel with no exit status, like a cut link.
    process.kill(process.ppid, 'SIGKILL');
    process.kill(process.pid, 'SIGKILL');
  }
  const done = () => process.exit(exitCode.code);
  process.stdout.write('', () => process.stderr.write('', done));
});
