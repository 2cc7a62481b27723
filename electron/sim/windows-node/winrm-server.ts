import { createHash, generateKeyPairSync, randomUUID, sign, X509Certificate } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Socket } from 'node:net';
import { createCommandHost, type CommandExecution, type CommandHost } from './command-host';
import type { WindowsNodeModel } from './node-model';
import { NtlmServerContext, NtlmError, type NtlmSessionSecurity } from '../../services/transports/winrm/ntlm';
import {
  ENCRYPTED_CONTENT_TYPE,
  EncryptionFramingError,
  decryptBody,
  encryptBody,
  isEncryptedContentType,
} from '../../services/transports/winrm/session-encryption';
import { child, children, descendants, parseXml, escapeXmlAttr, escapeXmlText, type XmlElement } from '../../services/transports/winrm/xml';

/**
 * A real WS-Management endpoint for a simulated Windows node (DESIGN.md section 9), speaking what a Windows
 * WinRM listener speaks at `/wsman`: the Windows Remote Shell (MS-WSMV 3.1.4.1.x) Create / Command / Send /
 * Receive / Signal / Delete, Windows-shaped responses and SOAP faults (Receive answers `w:TimedOut` after
 * the OperationTimeout, unknown shells `w:InvalidSelectors`), and the authentication of a hardened host:
 *
 * - HTTP: NTLM (`Negotiate` carrying NTLMSSP) only, and every envelope after the handshake must be sealed
 *   (`AllowUnencrypted = false`); unsealed bodies get HTTP 400. Basic is not offered over HTTP.
 * - HTTPS (generated self-signed certificate): NTLM with channel binding, or Basic.
 *
 * Commands run through the node simulator's command host, so the same scripts, model and faults answer SSH
 * and WinRM. Endpoint faults: `authFailure` (from the command host's faults) refuses every logon,
 * `stallReceive` leaves Receive requests unanswered (a hung listener); the command host's `stallAfterBytes`,
 * `slowOutput` and `dropAfterBytes` shape the output.
 */

export interface WinrmAccount {
  /** `user`, or `DOMAIN\user` to require that domain. */
  username: string;
  password: string;
}

export interface WinrmEndpointOptions {
  /** A 127.0.0.0/8 address to bind. */
  address: string;
  /** The node's command host (shared with its SSH server, so both see the same model and faults)... */
  commandHost?: CommandHost;
  /** ...or just its model, for which the endpoint makes its own command host. */
  model?: WindowsNodeModel;
  credentials: WinrmAccount | WinrmAccount[];
  https?: boolean;
  /** Bind port; 0 (default) picks a free one. */
  port?: number;
  /** Upper bound on the OperationTimeout a client may ask for (Windows: MaxTimeoutms, 60 s). */
  maxOperationTimeoutMs?: number;
}

export interface WinrmEndpointFaults {
  /** Receive requests are accepted and never answered. */
  stallReceive?: boolean;
}

export interface WinrmEvent {
  at: number;
  action: 'Create' | 'Command' | 'Send' | 'Receive' | 'Signal' | 'Delete' | 'Auth' | 'Fault';
  shellId?: string;
  commandId?: string;
  detail?: string;
}

export interface WinrmEndpoint {
  url: string;
  /** SHA-256 of the certificate DER, uppercase hex without separators (HTTPS only, else null). */
  certThumbprint: string | null;
  /** The certificate in PEM, for clients that trust it as a CA (HTTPS only). */
  certPem: string | null;
  /** Mutable endpoint faults. */
  faults: WinrmEndpointFaults;
  /** What happened, in order (tests and the demo's activity view read it). */
  readonly events: WinrmEvent[];
  openShellIds(): string[];
  stop(): Promise<void>;
}

const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  addressing: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  transfer: 'http://schemas.xmlsoap.org/ws/2004/09/transfer',
  wsman: 'http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd',
  shell: 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell',
} as const;
const CMD_URI = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/cmd';
const ANONYMOUS = 'http://schemas.xmlsoap.org/ws/2004/08/addressing/role/anonymous';
const SHELL_ACTION = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/';
const STATE = 'http://schemas.microsoft.com/wbem/wsman/1/windows/shell/CommandState/';
const ENVELOPE_OPEN =
  '<s:Envelope xml:lang="en-US" xmlns:s="http://www.w3.org/2003/05/soap-envelope" xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" xmlns:x="http://schemas.xmlsoap.org/ws/2004/09/transfer" xmlns:w="http://schemas.dmtf.org/wbem/wsman/1/wsman.xsd" xmlns:rsp="http://schemas.microsoft.com/wbem/wsman/1/windows/shell" xmlns:p="http://schemas.microsoft.com/wbem/wsman/1/wsman.xsd">';
const MAX_REQUEST_BYTES = 1024 * 1024;
const DEFAULT_MAX_ENVELOPE = 153_600;
const MAX_SHELLS_PER_USER = 30;

// ---------------------------------------------------------------------------------------------------------
// A self-signed certificate, built with node:crypto and a minimal DER writer (no openssl binary needed).

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const der = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
};
const seq = (...c: Buffer[]): Buffer => der(0x30, ...c);
const oid = (dotted: string): Buffer => {
  const parts = dotted.split('.').map(Number);
  const bytes: number[] = [40 * (parts[0] as number) + (parts[1] as number)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    for (let n = Math.floor(part / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
};
const utcTime = (date: Date): Buffer => {
  const p = (n: number): string => String(n).padStart(2, '0');
  const text = `${p(date.getUTCFullYear() % 100)}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}Z`;
  return der(0x17, Buffer.from(text, 'latin1'));
};
const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
  seq(oid(id), ...(critical ? [der(0x01, Buffer.from([0xff]))] : []), der(0x04, value));

export interface SelfSignedCertificate {
  certPem: string;
  keyPem: string;
  der: Buffer;
  /** SHA-256 of the DER, uppercase hex. */
  sha256: string;
}

/** An ECDSA P-256 certificate for `commonName` with the given IP and DNS subject alternative names. */
export function createSelfSignedCertificate(commonName: string, ips: string[], dnsNames: string[], now = new Date()): SelfSignedCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const serial = Buffer.from(randomUUID().replace(/-/g, ''), 'hex');
  // A positive DER INTEGER with no leading zero octet (0x00 followed by <0x80 is illegal padding).
  serial[0] = ((serial[0] as number) & 0x7f) | 0x40;
  const name = seq(der(0x31, seq(oid('2.5.4.3'), der(0x0c, Buffer.from(commonName, 'utf8')))));
  const ecdsaSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const altNames = [...ips.map((ip) => der(0x87, Buffer.from(ip.split('.').map(Number)))), ...dnsNames.map((dns) => der(0x82, Buffer.from(dns, 'latin1')))];
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    ecdsaSha256,
    name,
    seq(utcTime(new Date(now.getTime() - 3_600_000)), utcTime(new Date(now.getTime() + 365 * 86_400_000))),
    name,
    spki,
    der(
      0xa3,
      seq(
        extension('2.5.29.19', true, seq(der(0x01, Buffer.from([0xff])))), // basicConstraints CA:TRUE (self-issued trust anchor)
        extension('2.5.29.15', true, der(0x03, Buffer.from([0x02, 0x84]))), // keyUsage digitalSignature, keyCertSign
        extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage serverAuth
        extension('2.5.29.17', false, seq(...altNames)),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = seq(tbs, ecdsaSha256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const certPem = `-----BEGIN CERTIFICATE-----\n${certificate
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { certPem, keyPem, der: certificate, sha256: createHash('sha256').update(certificate).digest('hex').toUpperCase() };
}

// ---------------------------------------------------------------------------------------------------------
// Shell state

interface CommandState {
  id: string;
  exec: CommandExecution;
  queue: Array<{ stream: 'stdout' | 'stderr'; data: Buffer }>;
  stdoutEnded: boolean;
  stderrEnded: boolean;
  exitCode: number | null;
  dropped: boolean;
  stdinParts: Buffer[];
  resolveStdin: (text: string) => void;
  stdinClosed: boolean;
  /** Wakes a pending Receive. */
  notify: (() => void) | null;
  /** Sockets of Receive requests in flight, cut when the command host asks to drop the connection. */
  receiveSockets: Set<Socket>;
}

interface ShellState {
  id: string;
  owner: string;
  clientIp: string;
  createdAt: number;
  commands: Map<string, CommandState>;
}

interface ConnectionState {
  ntlm: NtlmServerContext | null;
  security: NtlmSessionSecurity | null;
  /** The NTLM-authenticated user of this connection (Basic authenticates each request instead). */
  user: string | null;
}

class SoapFault extends Error {
  constructor(
    readonly code: 's:Sender' | 's:Receiver',
    readonly subcode: string,
    readonly reason: string,
    readonly wsmanCode: number,
    readonly status = 500,
  ) {
    super(reason);
  }
}

const shellNotFound = (shellId: string): SoapFault =>
  new SoapFault(
    's:Sender',
    'w:InvalidSelectors',
    `The request for the Windows Remote Shell with ShellId ${shellId} failed because the shell was not found on the server. Possible causes are: the specified ShellId is incorrect or the shell no longer exists on the server. Provide the correct ShellId or create a new shell and retry the operation. `,
    2150858843,
  );

const operationTimedOut = (): SoapFault =>
  new SoapFault(
    's:Receiver',
    'w:TimedOut',
    'The WS-Management service cannot complete the operation within the time specified in OperationTimeout.  ',
    2150858793,
  );

function parseDurationMs(value: string | undefined): number | null {
  if (!value) return null;
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(value.trim());
  if (!m) return null;
  return Math.round(((Number(m[1] ?? 0) * 24 + Number(m[2] ?? 0)) * 60 + Number(m[3] ?? 0)) * 60_000 + Number(m[4] ?? 0) * 1000);
}

function accountMatches(account: WinrmAccount, user: string, domain: string, computerName: string): boolean {
  const slash = account.username.indexOf('\\');
  const accountUser = slash >= 0 ? account.username.slice(slash + 1) : account.username;
  const accountDomain = slash >= 0 ? account.username.slice(0, slash) : null;
  if (accountUser.toLowerCase() !== user.toLowerCase()) return false;
  const d = domain.toLowerCase();
  if (accountDomain !== null) return d === accountDomain.toLowerCase();
  return d === '' || d === '.' || d === computerName.toLowerCase() || d === 'localhost';
}

/** Starts the endpoint; resolves once it listens. */
export async function startWinrmEndpoint(options: WinrmEndpointOptions): Promise<WinrmEndpoint> {
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(options.address)) {
    throw new Error(`the WinRM simulator binds only 127.0.0.0/8 addresses, not ${options.address}`);
  }
  const host = options.commandHost ?? (options.model ? createCommandHost({ model: options.model }) : null);
  if (!host) throw new Error('startWinrmEndpoint needs a commandHost or a model');
  const computerName = host.model.hostname.toUpperCase().slice(0, 15);
  const accounts = Array.isArray(options.credentials) ? options.credentials : [options.credentials];
  const maxOperationTimeoutMs = options.maxOperationTimeoutMs ?? 60_000;
  const secure = options.https === true;
  const certificate = secure ? createSelfSignedCertificate(host.model.hostname, [options.address], ['localhost', host.model.hostname]) : null;
  const certificateHash = certificate ? createHash('sha256').update(certificate.der).digest() : undefined;

  const shells = new Map<string, ShellState>();
  const connections = new WeakMap<Socket, ConnectionState>();
  const sockets = new Set<Socket>();
  const events: WinrmEvent[] = [];
  const faults: WinrmEndpointFaults = {};
  let url = '';
  const record = (event: Omit<WinrmEvent, 'at'>): void => {
    events.push({ at: Date.now(), ...event });
  };

  const lookupPassword = (user: string, domain: string): string | null =>
    accounts.find((account) => accountMatches(account, user, domain, computerName))?.password ?? null;

  const connectionState = (socket: Socket): ConnectionState => {
    let state = connections.get(socket);
    if (!state) {
      state = { ntlm: null, security: null, user: null };
      connections.set(socket, state);
    }
    return state;
  };

  const baseHeaders = (res: http.ServerResponse): void => {
    res.setHeader('Server', 'Microsoft-HTTPAPI/2.0');
  };

  const challengeHeaders = (): string[] => (secure ? ['Negotiate', 'Basic realm="WSMAN"'] : ['Negotiate']);

  const send401 = (res: http.ServerResponse, wwwAuthenticate: string[]): void => {
    baseHeaders(res);
    res.statusCode = 401;
    res.setHeader('WWW-Authenticate', wwwAuthenticate);
    res.setHeader('Content-Length', '0');
    res.end();
  };

  const reply = (res: http.ServerResponse, state: ConnectionState, status: number, xml: string): void => {
    if (res.destroyed || res.writableEnded) return;
    baseHeaders(res);
    res.statusCode = status;
    const body = Buffer.from(xml, 'utf8');
    if (state.security) {
      const sealed = encryptBody(body, state.security);
      res.setHeader('Content-Type', ENCRYPTED_CONTENT_TYPE);
      res.setHeader('Content-Length', String(sealed.length));
      res.end(sealed);
    } else {
      res.setHeader('Content-Type', 'application/soap+xml;charset=UTF-8');
      res.setHeader('Content-Length', String(body.length));
      res.end(body);
    }
  };

  const header = (action: string, relatesTo: string): string =>
    `<s:Header><a:Action>${action}</a:Action><a:MessageID>uuid:${randomUUID().toUpperCase()}</a:MessageID><a:To>${ANONYMOUS}</a:To><a:RelatesTo>${escapeXmlText(relatesTo)}</a:RelatesTo></s:Header>`;

  const faultXml = (fault: SoapFault, relatesTo: string): string =>
    `${ENVELOPE_OPEN}${header('http://schemas.dmtf.org/wbem/wsman/1/wsman/fault', relatesTo)}<s:Body><s:Fault><s:Code><s:Value>${fault.code}</s:Value><s:Subcode><s:Value>${fault.subcode}</s:Value></s:Subcode></s:Code><s:Reason><s:Text xml:lang="en-US">${escapeXmlText(fault.reason)}</s:Text></s:Reason><s:Detail><f:WSManFault xmlns:f="http://schemas.microsoft.com/wbem/wsman/1/wsmanfault" Code="${fault.wsmanCode}" Machine="${escapeXmlAttr(options.address)}"><f:Message>${escapeXmlText(fault.reason)}</f:Message></f:WSManFault></s:Detail></s:Fault></s:Body></s:Envelope>`;

  // -------------------------------------------------------------------------------------------------------
  // Authentication

  /** Returns the authenticated user, or null after answering the request itself (401/400). */
  const authenticate = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): string | null => {
    const socket = req.socket;
    const state = connectionState(socket);
    const authorization = req.headers['authorization'];
    if (authorization) {
      const space = authorization.indexOf(' ');
      const scheme = (space < 0 ? authorization : authorization.slice(0, space)).toLowerCase();
      const token = space < 0 ? '' : authorization.slice(space + 1).trim();
      if (scheme === 'basic') {
        if (!secure) {
          // Basic is not offered over HTTP (AllowUnencrypted = false): refuse without looking at the password.
          record({ action: 'Auth', detail: 'basic refused over http' });
          send401(res, challengeHeaders());
          return null;
        }
        const decoded = Buffer.from(token, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        const name = colon < 0 ? decoded : decoded.slice(0, colon);
        const password = colon < 0 ? '' : decoded.slice(colon + 1);
        const slash = name.indexOf('\\');
        const user = slash >= 0 ? name.slice(slash + 1) : name;
        const domain = slash >= 0 ? name.slice(0, slash) : '';
        const expected = lookupPassword(user, domain);
        if (host.faults.authFailure || expected === null || expected !== password) {
          record({ action: 'Auth', detail: 'basic rejected' });
          send401(res, challengeHeaders());
          return null;
        }
        return user;
      }
      if (scheme === 'negotiate' || scheme === 'ntlm') {
        let message: Buffer;
        try {
          message = Buffer.from(token, 'base64');
        } catch {
          send401(res, challengeHeaders());
          return null;
        }
        const type = message.length >= 12 && message.subarray(0, 8).toString('latin1') === 'NTLMSSP\0' ? message.readUInt32LE(8) : 0;
        try {
          if (type === 1) {
            const ctx = new NtlmServerContext({
              computerName,
              dnsComputerName: host.model.hostname.toLowerCase(),
              lookupPassword,
              ...(certificateHash ? { certificateHash } : {}),
            });
            const challenge = ctx.challenge(message);
            state.ntlm = ctx;
            state.security = null;
            state.user = null;
            if (!challenge.ok) {
              record({ action: 'Auth', detail: `ntlm refused: ${challenge.reason}` });
              send401(res, challengeHeaders());
              return null;
            }
            send401(res, [`${scheme === 'ntlm' ? 'NTLM' : 'Negotiate'} ${challenge.message.toString('base64')}`]);
            return null;
          }
          if (type === 3 && state.ntlm) {
            const accepted = state.ntlm.accept(message);
            state.ntlm = null;
            if (!accepted.ok || host.faults.authFailure) {
              record({ action: 'Auth', detail: `ntlm rejected: ${accepted.ok ? 'auth failure fault' : accepted.reason}` });
              send401(res, challengeHeaders());
              return null;
            }
            state.user = accepted.user;
            state.security = secure ? null : accepted.security;
            record({ action: 'Auth', detail: `ntlm ok: ${accepted.user}` });
            if (body.length === 0) {
              baseHeaders(res);
              res.statusCode = 200;
              res.setHeader('Content-Length', '0');
              res.end();
              return null;
            }
            return accepted.user;
          }
        } catch (error) {
          if (!(error instanceof NtlmError)) throw error;
          record({ action: 'Auth', detail: `ntlm malformed: ${error.message}` });
        }
        state.ntlm = null;
        send401(res, challengeHeaders());
        return null;
      }
      send401(res, challengeHeaders());
      return null;
    }
    if (state.user !== null && (state.security !== null || secure)) return state.user;
    send401(res, challengeHeaders());
    return null;
  };

  // -------------------------------------------------------------------------------------------------------
  // WS-Management operations

  const startCommand = (shell: ShellState, commandLine: string): CommandState => {
    let resolveStdin: (text: string) => void = () => undefined;
    const stdin = new Promise<string>((resolve) => {
      resolveStdin = resolve;
    });
    const exec = host.execute(commandLine, stdin);
    const command: CommandState = {
      id: randomUUID().toUpperCase(),
      exec,
      queue: [],
      stdoutEnded: false,
      stderrEnded: false,
      exitCode: null,
      dropped: false,
      stdinParts: [],
      resolveStdin,
      stdinClosed: false,
      notify: null,
      receiveSockets: new Set(),
    };
    const wake = (): void => {
      const notify = command.notify;
      command.notify = null;
      notify?.();
    };
    exec.stdout.on('data', (data: Buffer) => {
      command.queue.push({ stream: 'stdout', data });
      wake();
    });
    exec.stderr.on('data', (data: Buffer) => {
      command.queue.push({ stream: 'stderr', data });
      wake();
    });
    exec.stdout.on('end', () => {
      command.stdoutEnded = true;
      wake();
    });
    exec.stderr.on('end', () => {
      command.stderrEnded = true;
      wake();
    });
    void exec.exit.then((exit) => {
      if (exit.dropConnection) {
        command.dropped = true;
        for (const socket of command.receiveSockets) socket.destroy();
      }
      command.exitCode = exit.code;
      wake();
    });
    shell.commands.set(command.id, command);
    return command;
  };

  const isDone = (command: CommandState): boolean => command.queue.length === 0 && command.stdoutEnded && command.stderrEnded && command.exitCode !== null;

  const receiveBody = (command: CommandState, maxEnvelope: number): string => {
    // Keep the envelope under MaxEnvelopeSize: base64 grows 4/3, leave room for the SOAP around it.
    let budget = Math.max(3, Math.floor(((maxEnvelope - 2048) * 3) / 4 / 3) * 3);
    const parts: string[] = [];
    while (command.queue.length > 0 && budget > 0) {
      const item = command.queue[0] as { stream: 'stdout' | 'stderr'; data: Buffer };
      const take = Math.min(item.data.length, budget);
      const piece = item.data.subarray(0, take);
      if (take === item.data.length) command.queue.shift();
      else item.data = item.data.subarray(take);
      budget -= take;
      parts.push(`<rsp:Stream Name="${item.stream}" CommandId="${command.id}">${piece.toString('base64')}</rsp:Stream>`);
    }
    if (isDone(command)) {
      parts.push(
        `<rsp:Stream Name="stdout" CommandId="${command.id}" End="true"></rsp:Stream>`,
        `<rsp:Stream Name="stderr" CommandId="${command.id}" End="true"></rsp:Stream>`,
        `<rsp:CommandState CommandId="${command.id}" State="${STATE}Done"><rsp:ExitCode>${(command.exitCode as number) >>> 0}</rsp:ExitCode></rsp:CommandState>`,
      );
    } else {
      parts.push(`<rsp:CommandState CommandId="${command.id}" State="${STATE}Running"></rsp:CommandState>`);
    }
    return `<rsp:ReceiveResponse>${parts.join('')}</rsp:ReceiveResponse>`;
  };

  const handleEnvelope = async (req: http.IncomingMessage, res: http.ServerResponse, state: ConnectionState, user: string, root: XmlElement): Promise<void> => {
    const headerEl = child(root, NS.soap, 'Header');
    const body = child(root, NS.soap, 'Body');
    const messageId = child(headerEl, NS.addressing, 'MessageID')?.text.trim() ?? '';
    const action = child(headerEl, NS.addressing, 'Action')?.text.trim() ?? '';
    const resourceUri = child(headerEl, NS.wsman, 'ResourceURI')?.text.trim() ?? '';
    const operationTimeoutMs = Math.min(parseDurationMs(child(headerEl, NS.wsman, 'OperationTimeout')?.text) ?? 60_000, maxOperationTimeoutMs);
    const maxEnvelope = Number(child(headerEl, NS.wsman, 'MaxEnvelopeSize')?.text.trim()) || DEFAULT_MAX_ENVELOPE;
    const shellId = descendants(headerEl ?? root, NS.wsman, 'Selector')
      .find((s) => s.attrs['Name'] === 'ShellId')
      ?.text.trim();
    const options = new Map(children(child(headerEl, NS.wsman, 'OptionSet'), NS.wsman, 'Option').map((o) => [o.attrs['Name'] ?? '', o.text.trim()] as const));
    const ok = (responseAction: string, bodyXml: string): void =>
      reply(res, state, 200, `${ENVELOPE_OPEN}${header(responseAction, messageId)}<s:Body>${bodyXml}</s:Body></s:Envelope>`);

    if (resourceUri !== CMD_URI) {
      throw new SoapFault(
        's:Sender',
        'w:DestinationUnreachable',
        `The WS-Management service cannot process the request. The resource URI (${resourceUri}) was not found in the WS-Management catalog. `,
        2150858752,
      );
    }
    const findShell = (): ShellState => {
      const shell = shellId ? shells.get(shellId.toUpperCase()) : undefined;
      if (!shell || shell.owner !== user.toLowerCase()) throw shellNotFound(shellId ?? '');
      return shell;
    };
    const findCommand = (shell: ShellState, commandId: string | undefined): CommandState => {
      const command = commandId ? shell.commands.get(commandId.toUpperCase()) : undefined;
      if (!command) {
        throw new SoapFault(
          's:Sender',
          'w:InvalidParameter',
          `The WS-Management service cannot process the request because the request contained invalid selectors for the resource. The CommandId ${commandId ?? ''} is not valid. `,
          2150858843,
        );
      }
      return command;
    };

    switch (action) {
      case 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Create': {
        const owned = [...shells.values()].filter((s) => s.owner === user.toLowerCase()).length;
        if (owned >= MAX_SHELLS_PER_USER) {
          throw new SoapFault(
            's:Receiver',
            'w:InternalError',
            `The WS-Management service cannot process the request. This user is allowed a maximum number of ${MAX_SHELLS_PER_USER} concurrent shells, which has been exceeded. Close existing shells or raise the quota for this user. `,
            2150859174,
          );
        }
        const id = randomUUID().toUpperCase();
        const shell: ShellState = { id, owner: user.toLowerCase(), clientIp: req.socket.remoteAddress ?? '', createdAt: Date.now(), commands: new Map() };
        shells.set(id, shell);
        record({ action: 'Create', shellId: id, detail: `codepage ${options.get('WINRS_CODEPAGE') ?? '437'}` });
        ok(
          'http://schemas.xmlsoap.org/ws/2004/09/transfer/CreateResponse',
          `<x:ResourceCreated><a:Address>${escapeXmlText(url)}</a:Address><a:ReferenceParameters><w:ResourceURI>${CMD_URI}</w:ResourceURI><w:SelectorSet><w:Selector Name="ShellId">${id}</w:Selector></w:SelectorSet></a:ReferenceParameters></x:ResourceCreated>` +
            `<rsp:Shell xmlns:rsp="${NS.shell}"><rsp:ShellId>${id}</rsp:ShellId><rsp:ResourceUri>${CMD_URI}</rsp:ResourceUri><rsp:Owner>${escapeXmlText(user)}</rsp:Owner><rsp:ClientIP>${escapeXmlText(shell.clientIp)}</rsp:ClientIP><rsp:IdleTimeOut>PT7200.000S</rsp:IdleTimeOut><rsp:InputStreams>stdin</rsp:InputStreams><rsp:OutputStreams>stdout stderr</rsp:OutputStreams><rsp:ShellRunTime>P0DT0H0M0S</rsp:ShellRunTime><rsp:ShellInactivity>P0DT0H0M0S</rsp:ShellInactivity></rsp:Shell>`,
        );
        return;
      }
      case `${SHELL_ACTION}Command`: {
        const shell = findShell();
        const line = child(body, NS.shell, 'CommandLine');
        const command = child(line, NS.shell, 'Command')?.text.trim() ?? '';
        const args = children(line, NS.shell, 'Arguments').map((a) => a.text);
        const commandLine = [command, ...args].join(' ');
        const started = startCommand(shell, commandLine);
        record({ action: 'Command', shellId: shell.id, commandId: started.id, detail: commandLine.slice(0, 200) });
        ok(`${SHELL_ACTION}CommandResponse`, `<rsp:CommandResponse><rsp:CommandId>${started.id}</rsp:CommandId></rsp:CommandResponse>`);
        return;
      }
      case `${SHELL_ACTION}Send`: {
        const shell = findShell();
        for (const stream of children(child(body, NS.shell, 'Send'), NS.shell, 'Stream')) {
          const command = findCommand(shell, stream.attrs['CommandId']);
          if (command.stdinClosed) continue;
          const data = Buffer.from(stream.text.replace(/\s+/g, ''), 'base64');
          command.stdinParts.push(data);
          if (stream.attrs['End'] === 'true') {
            command.stdinClosed = true;
            command.resolveStdin(Buffer.concat(command.stdinParts).toString('utf8'));
          }
          record({ action: 'Send', shellId: shell.id, commandId: command.id, detail: `${data.length} bytes${command.stdinClosed ? ', end' : ''}` });
        }
        ok(`${SHELL_ACTION}SendResponse`, '<rsp:SendResponse></rsp:SendResponse>');
        return;
      }
      case `${SHELL_ACTION}Receive`: {
        const shell = findShell();
        const desired = child(child(body, NS.shell, 'Receive'), NS.shell, 'DesiredStream');
        const command = findCommand(shell, desired?.attrs['CommandId']);
        record({ action: 'Receive', shellId: shell.id, commandId: command.id });
        if (faults.stallReceive) {
          // A hung listener: hold the request until the client gives up and closes the connection.
          await new Promise<void>((resolve) => req.socket.once('close', () => resolve()));
          return;
        }
        if (command.dropped) {
          req.socket.destroy();
          return;
        }
        command.receiveSockets.add(req.socket);
        try {
          if (command.queue.length === 0 && !isDone(command)) {
            const outcome = await new Promise<'data' | 'timeout' | 'closed'>((resolve) => {
              const timer = setTimeout(() => finish('timeout'), operationTimeoutMs);
              const onClose = (): void => finish('closed');
              function finish(value: 'data' | 'timeout' | 'closed'): void {
                clearTimeout(timer);
                req.socket.removeListener('close', onClose);
                if (command.notify === wakeUp) command.notify = null;
                resolve(value);
              }
              const wakeUp = (): void => finish('data');
              command.notify = wakeUp;
              req.socket.once('close', onClose);
            });
            if (outcome === 'closed' || command.dropped) {
              req.socket.destroy();
              return;
            }
            if (outcome === 'timeout') throw operationTimedOut();
          }
          // A finished command stays until it is signalled or its shell is deleted, as on Windows.
          const xml = receiveBody(command, maxEnvelope);
          ok(`${SHELL_ACTION}ReceiveResponse`, xml);
        } finally {
          command.receiveSockets.delete(req.socket);
        }
        return;
      }
      case `${SHELL_ACTION}Signal`: {
        const shell = findShell();
        const signal = child(body, NS.shell, 'Signal');
        const command = findCommand(shell, signal?.attrs['CommandId']);
        const code = child(signal, NS.shell, 'Code')?.text.trim() ?? '';
        command.exec.abort();
        if (code.endsWith('/terminate')) shell.commands.delete(command.id);
        record({ action: 'Signal', shellId: shell.id, commandId: command.id, detail: code.slice(code.lastIndexOf('/') + 1) });
        ok(`${SHELL_ACTION}SignalResponse`, '<rsp:SignalResponse></rsp:SignalResponse>');
        return;
      }
      case 'http://schemas.xmlsoap.org/ws/2004/09/transfer/Delete': {
        const shell = findShell();
        for (const command of shell.commands.values()) command.exec.abort();
        shells.delete(shell.id);
        record({ action: 'Delete', shellId: shell.id });
        ok('http://schemas.xmlsoap.org/ws/2004/09/transfer/DeleteResponse', '');
        return;
      }
      default:
        throw new SoapFault(
          's:Sender',
          'a:ActionNotSupported',
          `The WS-Management service cannot process the request because the WS-Addressing Action URI in the request is not compatible with the resource. `,
          2150858754,
        );
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        baseHeaders(res);
        res.statusCode = 413;
        res.setHeader('Connection', 'close');
        res.end();
        return;
      }
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    const path = (req.url ?? '').split('?')[0]?.toLowerCase();
    if (req.method !== 'POST' || (path !== '/wsman' && path !== '/wsman/')) {
      baseHeaders(res);
      res.statusCode = req.method === 'POST' ? 404 : 405;
      res.setHeader('Content-Length', '0');
      res.end();
      return;
    }
    const user = authenticate(req, res, body);
    if (user === null) return;
    const state = connectionState(req.socket);

    let xmlText: string;
    const contentType = req.headers['content-type'];
    if (state.security) {
      if (!isEncryptedContentType(contentType)) {
        // AllowUnencrypted = false: an unsealed envelope on plain HTTP is refused.
        record({ action: 'Fault', detail: 'unencrypted request refused' });
        baseHeaders(res);
        res.statusCode = 400;
        res.setHeader('Content-Length', '0');
        res.end();
        return;
      }
      try {
        xmlText = decryptBody(body, state.security).message.toString('utf8');
      } catch (error) {
        if (!(error instanceof EncryptionFramingError || error instanceof NtlmError)) throw error;
        record({ action: 'Fault', detail: `decryption failed: ${error.message}` });
        req.socket.destroy();
        return;
      }
    } else {
      xmlText = body.toString('utf8');
    }

    let root: XmlElement;
    let messageId = '';
    try {
      root = parseXml(xmlText);
      if (root.ns !== NS.soap || root.local !== 'Envelope') throw new Error('not a SOAP envelope');
      messageId = child(child(root, NS.soap, 'Header'), NS.addressing, 'MessageID')?.text.trim() ?? '';
    } catch {
      const fault = new SoapFault(
        's:Sender',
        'w:SchemaValidationError',
        'The SOAP XML in the message does not match the corresponding XML schema definition. Change the XML and retry. ',
        2150858817,
        400,
      );
      reply(res, state, 400, faultXml(fault, ''));
      return;
    }
    try {
      await handleEnvelope(req, res, state, user, root);
    } catch (error) {
      if (!(error instanceof SoapFault)) throw error;
      record({ action: 'Fault', detail: `${error.subcode} ${error.wsmanCode}` });
      reply(res, state, error.status, faultXml(error, messageId));
    }
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      record({ action: 'Fault', detail: `internal: ${(error as Error).message}` });
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader('Content-Length', '0');
        res.end();
      } else {
        res.destroy();
      }
    });
  };

  const server: http.Server = secure ? https.createServer({ key: certificate?.keyPem, cert: certificate?.certPem }, onRequest) : http.createServer(onRequest);
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 125_000;
  server.requestTimeout = 0;
  const onConnection = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  server.on('connection', onConnection);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.address, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  const address = server.address() as net.AddressInfo;
  url = `${secure ? 'https' : 'http'}://${options.address}:${address.port}/wsman`;

  return {
    url,
    certThumbprint: certificate?.sha256 ?? null,
    certPem: certificate?.certPem ?? null,
    faults,
    events,
    openShellIds: () => [...shells.keys()],
    async stop() {
      for (const shell of shells.values()) for (const command of shell.commands.values()) command.exec.abort();
      shells.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
    },
  };
}

/** The certificate a `startWinrmEndpoint({ https: true })` endpoint presents, as an X509Certificate. */
export function endpointCertificate(endpoint: WinrmEndpoint): X509Certificate | null {
  return endpoint.certPem ? new X509Certificate(endpoint.certPem) : null;
}
