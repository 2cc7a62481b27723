import { createHash, randomBytes, type X509Certificate } from 'node:crypto';
import { WindeckError, type ErrorContext } from '../../../../shared/contract/errors';
import { HttpConnection, type HttpResponse, type TlsTrust } from './http-connection';
import { NtlmClient, NtlmError, parseNtlmUser, type NtlmSessionSecurity } from './ntlm';
import { EncryptionFramingError, ENCRYPTED_CONTENT_TYPE, decryptBody, encryptBody, isEncryptedContentType } from './session-encryption';

/**
 * Authentication for WinRM and the authenticated connection ("channel") a WS-Management client sends its
 * envelopes on.
 *
 * - NTLM (the `Negotiate` scheme carrying raw NTLMSSP, as Windows and pywinrm do). Over plain HTTP every
 *   envelope after the handshake is sealed and signed (see session-encryption.ts), so nothing travels in
 *   clear; a peer that answers unsealed is refused. Over HTTPS the TLS channel protects the body and NTLM
 *   binds to the server certificate (channel binding token).
 * - Basic: only over HTTPS. Over plain HTTP it is refused before anything is sent, because the password
 *   would travel in clear.
 */

export type WinrmAuthMethod = 'ntlm' | 'basic';

export interface WinrmCredentials {
  /** `user`, `DOMAIN\user` or `user@realm`. */
  username: string;
  password: string;
  /** Default: NTLM. */
  method?: WinrmAuthMethod;
}

export interface WinrmEndpoint {
  /** `http://host:5985/wsman` or `https://host:5986/wsman`. */
  url: URL;
  trust?: TlsTrust;
}

export const WINRM_USER_AGENT = 'Windeck WinRM client';
const SOAP_CONTENT_TYPE = 'application/soap+xml;charset=UTF-8';

export function assertAuthAllowed(endpoint: WinrmEndpoint, credentials: WinrmCredentials, context: ErrorContext): void {
  const method = credentials.method ?? 'ntlm';
  if (endpoint.url.protocol !== 'http:' && endpoint.url.protocol !== 'https:') {
    throw new WindeckError('VALIDATION', `WinRM endpoint must be http:// or https://, not ${endpoint.url.protocol}`, context);
  }
  if (method === 'basic' && endpoint.url.protocol !== 'https:') {
    throw new WindeckError(
      'VALIDATION',
      'WinRM Basic authentication over plain HTTP would send the password in clear: use HTTPS, or NTLM (which encrypts every message).',
      { ...context, step: 'auth' },
    );
  }
}

/** RFC 5929 tls-server-end-point hash: the certificate's signature hash, with MD5 and SHA-1 raised to SHA-256. */
export function certificateBindingHash(certificate: X509Certificate): Buffer {
  const der = certificate.raw;
  const readHeader = (offset: number): { tag: number; start: number; end: number } => {
    const tag = der[offset] as number;
    let length = der[offset + 1] as number;
    let start = offset + 2;
    if (length & 0x80) {
      const count = length & 0x7f;
      length = 0;
      for (let i = 0; i < count; i += 1) length = length * 256 + (der[start + i] as number);
      start += count;
    }
    return { tag, start, end: start + length };
  };
  let algorithm = 'sha256';
  try {
    const certificateSeq = readHeader(0);
    const tbs = readHeader(certificateSeq.start);
    const sigAlg = readHeader(tbs.end);
    const oid = readHeader(sigAlg.start);
    const oidHex = der.subarray(oid.start, oid.end).toString('hex');
    const byOid: Record<string, string> = {
      '2a864886f70d01010c': 'sha384', // sha384WithRSAEncryption
      '2a864886f70d01010d': 'sha512', // sha512WithRSAEncryption
      '2a8648ce3d040303': 'sha384', // ecdsa-with-SHA384
      '2a8648ce3d040304': 'sha512', // ecdsa-with-SHA512
    };
    algorithm = byOid[oidHex] ?? 'sha256';
  } catch {
    algorithm = 'sha256';
  }
  return createHash(algorithm).update(der).digest();
}

function authToken(response: HttpResponse): { scheme: string; token: Buffer } | null {
  for (const header of response.headers['www-authenticate'] ?? []) {
    for (const part of header.split(',')) {
      const m = /^\s*(Negotiate|NTLM)\s+([A-Za-z0-9+/=]+)\s*$/i.exec(part);
      if (m) return { scheme: m[1] as string, token: Buffer.from(m[2] as string, 'base64') };
    }
  }
  return null;
}

function offeredSchemes(response: HttpResponse): string {
  const schemes = (response.headers['www-authenticate'] ?? []).map((h) => h.trim().split(/\s+/)[0]).filter(Boolean);
  return schemes.length > 0 ? schemes.join(', ') : 'none';
}

/** Decodes a SOAP body by its BOM / declared charset (Windows answers UTF-8 unless asked for UTF-16). */
export function decodeSoapText(body: Buffer, charset?: string): string {
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return body.subarray(2).toString('utf16le');
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return body.subarray(3).toString('utf8');
  if (charset && /utf-?16/i.test(charset)) return body.toString('utf16le');
  return body.toString('utf8');
}

export interface ChannelOptions {
  endpoint: WinrmEndpoint;
  credentials: WinrmCredentials;
  timeoutMs: number;
  signal: AbortSignal;
  context: ErrorContext;
  random?: (size: number) => Buffer;
}

/** One authenticated HTTP connection to a WinRM listener. One envelope at a time. */
export class WinrmChannel {
  private constructor(
    private readonly connection: HttpConnection,
    private readonly options: ChannelOptions,
    private readonly security: NtlmSessionSecurity | null,
    private readonly basicHeader: string | null,
  ) {}

  get usable(): boolean {
    return this.connection.usable;
  }

  get encrypted(): boolean {
    return this.security !== null;
  }

  destroy(): void {
    this.connection.destroy();
  }

  static async open(options: ChannelOptions): Promise<WinrmChannel> {
    const { endpoint, credentials, context } = options;
    assertAuthAllowed(endpoint, credentials, context);
    const connection = await HttpConnection.open({
      url: endpoint.url,
      ...(endpoint.trust ? { trust: endpoint.trust } : {}),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      context,
    });
    try {
      if ((credentials.method ?? 'ntlm') === 'basic') {
        const basic = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`, 'utf8').toString('base64')}`;
        return new WinrmChannel(connection, options, null, basic);
      }
      const security = await ntlmHandshake(connection, options);
      return new WinrmChannel(connection, options, endpoint.url.protocol === 'http:' ? security : null, null);
    } catch (error) {
      connection.destroy();
      throw error;
    }
  }

  /** Sends one SOAP envelope; returns the HTTP status and the (decrypted) SOAP text. */
  async post(soap: string, request: { stage: string; timeoutMs: number; signal: AbortSignal }): Promise<{ status: number; xml: string }> {
    const { context } = this.options;
    const plain = Buffer.from(soap, 'utf8');
    const headers: Record<string, string> = {
      'User-Agent': WINRM_USER_AGENT,
      Connection: 'Keep-Alive',
      'Content-Type': this.security ? ENCRYPTED_CONTENT_TYPE : SOAP_CONTENT_TYPE,
    };
    if (this.basicHeader) headers['Authorization'] = this.basicHeader;
    // Fail before sealing: sealing advances this connection's RC4 state and sequence number.
    this.connection.assertReady(request.signal, request.stage, context);
    const body = this.security ? encryptBody(plain, this.security) : plain;
    let response: HttpResponse;
    try {
      response = await this.connection.request({
        method: 'POST',
        path: this.options.endpoint.url.pathname || '/wsman',
        headers,
        body,
        timeoutMs: request.timeoutMs,
        signal: request.signal,
        stage: request.stage,
        context,
      });
    } catch (error) {
      // A sealed message that may not have arrived leaves both sides' sequence numbers out of step.
      if (this.security) this.connection.destroy();
      throw error;
    }
    if (response.status === 401) {
      this.connection.destroy();
      throw new WindeckError(
        'AUTH_FAILED',
        this.basicHeader
          ? `The WinRM server refused the credentials of ${this.options.credentials.username} (HTTP 401, Basic).`
          : `The WinRM server no longer accepts this NTLM session (HTTP 401 during ${request.stage}).`,
        { ...context, step: request.stage },
      );
    }
    const contentType = response.headers['content-type']?.[0];
    let xml: string;
    if (this.security) {
      if (isEncryptedContentType(contentType)) {
        try {
          const { message, charset } = decryptBody(response.body, this.security);
          xml = decodeSoapText(message, charset);
        } catch (error) {
          this.connection.destroy();
          const why = error instanceof NtlmError || error instanceof EncryptionFramingError ? error.message : String(error);
          throw new WindeckError('REMOTE_FAILED', `A WinRM ${request.stage} reply failed its integrity check: ${why}.`, { ...context, step: request.stage });
        }
      } else if (response.status >= 200 && response.status < 300 && response.body.length > 0) {
        this.connection.destroy();
        throw new WindeckError('REMOTE_FAILED', `The WinRM server answered ${request.stage} without message encryption; the reply was refused.`, {
          ...context,
          step: request.stage,
        });
      } else {
        // An unsealed error status (e.g. 400, 503): nothing in it is trusted beyond the status.
        throw new WindeckError('REMOTE_FAILED', `The WinRM server answered ${request.stage} with HTTP ${response.status}.`, {
          ...context,
          step: request.stage,
        });
      }
    } else {
      xml = decodeSoapText(response.body, /charset=([\w-]+)/i.exec(contentType ?? '')?.[1]);
    }
    if (response.status !== 200 && response.status !== 500 && response.status !== 400) {
      throw new WindeckError('REMOTE_FAILED', `The WinRM server answered ${request.stage} with HTTP ${response.status}.`, {
        ...context,
        step: request.stage,
      });
    }
    return { status: response.status, xml };
  }
}

async function ntlmHandshake(connection: HttpConnection, options: ChannelOptions): Promise<NtlmSessionSecurity> {
  const { context, credentials } = options;
  const secure = options.endpoint.url.protocol === 'https:';
  const client = new NtlmClient({
    identity: parseNtlmUser(credentials.username, credentials.password),
    ...(secure && connection.peerCertificate ? { certificateHash: certificateBindingHash(connection.peerCertificate) } : {}),
    random: options.random ?? randomBytes,
  });
  const post = (authorization: string): Promise<HttpResponse> =>
    connection.request({
      method: 'POST',
      path: options.endpoint.url.pathname || '/wsman',
      headers: {
        'User-Agent': WINRM_USER_AGENT,
        Connection: 'Keep-Alive',
        'Content-Type': SOAP_CONTENT_TYPE,
        Authorization: authorization,
      },
      body: Buffer.alloc(0),
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      stage: 'auth',
      context,
    });

  const first = await post(`Negotiate ${client.negotiate().toString('base64')}`);
  const challenge = first.status === 401 ? authToken(first) : null;
  if (!challenge) {
    throw new WindeckError(
      'AUTH_FAILED',
      first.status === 401
        ? `The WinRM server does not offer NTLM (Negotiate) authentication (it offers: ${offeredSchemes(first)}).`
        : `The WinRM server answered the NTLM negotiation with HTTP ${first.status} instead of a challenge.`,
      { ...context, step: 'auth' },
    );
  }
  let authenticate: { message: Buffer; security: NtlmSessionSecurity };
  try {
    authenticate = client.authenticate(challenge.token);
  } catch (error) {
    if (error instanceof NtlmError) {
      throw new WindeckError('AUTH_FAILED', `NTLM with the WinRM server failed: ${error.message}.`, { ...context, step: 'auth' });
    }
    throw error;
  }
  const second = await post(`${challenge.scheme} ${authenticate.message.toString('base64')}`);
  if (second.status === 401) {
    throw new WindeckError('AUTH_FAILED', `The WinRM server rejected the credentials of ${credentials.username} (HTTP 401, NTLM).`, {
      ...context,
      step: 'auth',
    });
  }
  if (second.status !== 200) {
    throw new WindeckError('REMOTE_FAILED', `The WinRM server answered NTLM authentication with HTTP ${second.status}.`, {
      ...context,
      step: 'auth',
    });
  }
  return authenticate.security;
}
