import crypto from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { inboundScheduler, slabReads, type InboundSlot } from '../../../../../../electron/services/transports/ssh/connect';

/** A slot whose every hand-on costs `costMs` of the fake clock and is logged. */
function fakeSlot(name: string, log: string[], clock: { t: number }, costMs = 1): InboundSlot & { resumed: number; dead: boolean } {
  const slot = {
    held: [] as Buffer[],
    resumed: 0,
    dead: false,
    emit: (chunk: Buffer) => {
      log.push(`${name}:${chunk.toString()}`);
      clock.t += costMs;
    },
    resume: () => {
      slot.resumed += 1;
    },
    alive: () => !slot.dead,
  };
  return slot;
}

/** Let the event loop run until `done` or `turns` loop turns passed (one immediate per turn). */
async function turns(done: () => boolean, max = 200): Promise<void> {
  for (let i = 0; i < max && !done(); i += 1) await new Promise((r) => setImmediate(r));
}

/** Block the thread (real time) so a timer set before becomes due. */
function spin(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('inboundScheduler (time-budgeted, fair turns for inbound SSH data)', () => {
  it('hands chunks on at once within the budget, then holds the rest and lets a due timer run before them', async () => {
    const clock = { t: 0 };
    const log: string[] = [];
    const s = inboundScheduler(4, () => clock.t);
    const slots = Array.from({ length: 12 }, (_, i) => fakeSlot(`s${i}`, log, clock));
    setTimeout(() => log.push('timer'), 0);
    spin(5);
    // One poll phase: every connection read one chunk.
    const handedOn = slots.map((slot, i) => s.deliver(slot, Buffer.from(String(i))));
    expect(handedOn).toEqual([true, true, true, true, false, false, false, false, false, false, false, false]);
    expect(log).toEqual(['s0:0', 's1:1', 's2:2', 's3:3']);
    expect(s.waiting).toBe(8);
    await turns(() => s.waiting === 0 && log.length === 13);
    // The timer ran before anything held (the turn's budget was used up), and the held chunks kept their order.
    expect(log).toEqual(['s0:0', 's1:1', 's2:2', 's3:3', 'timer', 's4:4', 's5:5', 's6:6', 's7:7', 's8:8', 's9:9', 's10:10', 's11:11']);
    // A connection whose chunk was held is resumed once it was handed on; the others were never stopped.
    expect(slots.map((x) => x.resumed)).toEqual([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
  });

  it('works the line off a budget per loop turn, with timers in between', async () => {
    const clock = { t: 0 };
    const log: string[] = [];
    const s = inboundScheduler(4, () => clock.t);
    const slots = Array.from({ length: 20 }, (_, i) => fakeSlot(`s${i}`, log, clock));
    // Every loop turn's timers phase leaves a mark (a 0 ms timer re-armed from itself, made due by spinning).
    let ticking = true;
    const tick = () => {
      log.push('|');
      if (ticking) setTimeout(tick, 0);
      spin(2);
    };
    setTimeout(tick, 0);
    spin(2);
    for (const [i, slot] of slots.entries()) s.deliver(slot, Buffer.from(String(i)));
    await turns(() => s.waiting === 0);
    ticking = false;
    const handed = log
      .join(' ')
      .split('|')
      .map((part) => part.trim().split(' ').filter(Boolean).length);
    // At most a budget's worth (4 chunks of 1 ms) between two timer phases, and all 20 arrived.
    expect(Math.max(...handed)).toBeLessThanOrEqual(4);
    expect(log.filter((x) => x !== '|')).toHaveLength(20);
  });

  it('keeps one connection in order, takes turns between connections, and drops what a destroyed socket held', async () => {
    const clock = { t: 0 };
    const log: string[] = [];
    const s = inboundScheduler(1, () => clock.t);
    const a = fakeSlot('a', log, clock);
    const b = fakeSlot('b', log, clock);
    const c = fakeSlot('c', log, clock);
    expect(s.deliver(a, Buffer.from('1'))).toBe(true);
    // Budget used: the rest is held. A socket that reads more before it stopped queues behind its own chunk.
    expect(s.deliver(a, Buffer.from('2'))).toBe(false);
    expect(s.deliver(b, Buffer.from('1'))).toBe(false);
    expect(s.deliver(a, Buffer.from('3'))).toBe(false);
    expect(s.deliver(c, Buffer.from('1'))).toBe(false);
    c.dead = true;
    await turns(() => s.waiting === 0);
    expect(log).toEqual(['a:1', 'a:2', 'b:1', 'a:3']);
    expect(a.resumed).toBe(1);
    expect(c.resumed).toBe(0);
    expect(c.held).toEqual([]);
  });

  it('starts a fresh budget after the line is done (an idle gap does not count against the next turn)', async () => {
    const clock = { t: 0 };
    const log: string[] = [];
    const s = inboundScheduler(4, () => clock.t);
    const x = fakeSlot('x', log, clock);
    expect(s.deliver(x, Buffer.from('1'))).toBe(true);
    await turns(() => false, 3);
    clock.t += 1000;
    expect(s.deliver(x, Buffer.from('2'))).toBe(true);
    expect(s.waiting).toBe(0);
  });
});

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((srv) => new Promise((r) => srv.close(r))));
});

describe('slabReads through a scheduler that holds every chunk (budget 0)', () => {
  it('delivers every byte in order, and the peer closing comes after all of its data', async () => {
    const data = crypto.randomBytes(2 * 1024 * 1024 + 3);
    const server = net.createServer((conn) => {
      conn.on('error', () => undefined);
      conn.end(data);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const reads = slabReads(undefined, undefined, undefined, inboundScheduler(0));
    const sock = net.connect({ host: '127.0.0.1', port: (server.address() as net.AddressInfo).port, onread: reads.onread });
    reads.attach(sock);
    const chunks: Buffer[] = [];
    let bytesAtEnd = -1;
    await new Promise<void>((resolve, reject) => {
      sock.on('error', reject);
      sock.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
      sock.on('end', () => {
        bytesAtEnd = chunks.reduce((n, c) => n + c.length, 0);
        resolve();
      });
      setTimeout(() => reject(new Error('no end')), 10_000).unref();
    });
    sock.destroy();
    expect(bytesAtEnd).toBe(data.length);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    // Every chunk was held for a later turn: more than one read, each after the socket had stopped reading.
    expect(chunks.length).toBeGreaterThan(1);
  });
});
