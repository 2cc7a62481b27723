import type { NtlmSessionSecurity } from './ntlm';

/**
 * WinRM message encryption over HTTP (MS-WSMV 2.2.9.1.1, "HTTP-SPNEGO-session-encrypted"): after NTLM
 * authenticates the connection, each SOAP body travels sealed inside a two-part MIME body:
 *
 *   --Encrypted Boundary\r\n
 *   \tContent-Type: application/HTTP-SPNEGO-session-encrypted\r\n
 *   \tOriginalContent: type=application/soap+xml;charset=UTF-8;Length=<plaintext bytes>\r\n
 *   --Encrypted Boundary\r\n
 *   \tContent-Type: application/octet-stream\r\n
 *   <uint32 LE signature length = 16><NTLM signature><RC4-sealed SOAP>--Encrypted Boundary--\r\n
 *
 * This is the layout Windows and pywinrm (`winrm/encryption.py`) exchange. Sealed bytes are binary and may
 * contain anything, so the reader uses the declared Length rather than searching for the boundary.
 */

export const ENCRYPTED_PROTOCOL = 'application/HTTP-SPNEGO-session-encrypted';
export const ENCRYPTED_CONTENT_TYPE = `multipart/encrypted;protocol="${ENCRYPTED_PROTOCOL}";boundary="Encrypted Boundary"`;
const BOUNDARY = Buffer.from('--Encrypted Boundary', 'latin1');
const CRLF = Buffer.from('\r\n', 'latin1');

export class EncryptionFramingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncryptionFramingError';
  }
}

export function isEncryptedContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const lower = contentType.toLowerCase();
  return (lower.startsWith('multipart/encrypted') || lower.startsWith('multipart/x-multi-encrypted')) && lower.includes(ENCRYPTED_PROTOCOL.toLowerCase());
}

export function encryptBody(message: Buffer, security: NtlmSessionSecurity, charset = 'UTF-8'): Buffer {
  const { sealed, signature } = security.wrap(message);
  const signatureLength = Buffer.alloc(4);
  signatureLength.writeUInt32LE(signature.length);
  return Buffer.concat([
    BOUNDARY,
    CRLF,
    Buffer.from(`\tContent-Type: ${ENCRYPTED_PROTOCOL}\r\n`, 'latin1'),
    Buffer.from(`\tOriginalContent: type=application/soap+xml;charset=${charset};Length=${message.length}\r\n`, 'latin1'),
    BOUNDARY,
    CRLF,
    Buffer.from('\tContent-Type: application/octet-stream\r\n', 'latin1'),
    signatureLength,
    signature,
    sealed,
    BOUNDARY,
    Buffer.from('--\r\n', 'latin1'),
  ]);
}

function readLine(body: Buffer, offset: number): { line: string; next: number } {
  const end = body.indexOf(CRLF, offset);
  if (end < 0) throw new EncryptionFramingError('truncated encrypted body');
  return { line: body.subarray(offset, end).toString('latin1'), next: end + 2 };
}

/** Unseals every part of an encrypted body (one for NTLM; several when a peer splits) and concatenates them. */
export function decryptBody(body: Buffer, security: NtlmSessionSecurity): { message: Buffer; charset: string } {
  const out: Buffer[] = [];
  let charset = 'UTF-8';
  let offset = 0;
  for (;;) {
    const boundary = readLine(body, offset);
    if (boundary.line.trim() === '--Encrypted Boundary--') break;
    // Some peers end with a plain boundary line instead of the closing one.
    if (boundary.line.trim() === '--Encrypted Boundary' && boundary.next >= body.length && out.length > 0) break;
    if (boundary.line.trim() !== '--Encrypted Boundary') throw new EncryptionFramingError('expected the encryption boundary');
    offset = boundary.next;
    let length: number | null = null;
    // Part headers until the next boundary line.
    for (;;) {
      const header = readLine(body, offset);
      if (header.line.trim() === '--Encrypted Boundary') {
        offset = header.next;
        break;
      }
      offset = header.next;
      const original = /OriginalContent:\s*(.*)$/i.exec(header.line.trim());
      if (original) {
        const lengthMatch = /Length=(\d+)/i.exec(original[1] ?? '');
        const charsetMatch = /charset=([\w-]+)/i.exec(original[1] ?? '');
        if (lengthMatch) length = Number(lengthMatch[1]);
        if (charsetMatch) charset = charsetMatch[1] as string;
      }
    }
    if (length === null) throw new EncryptionFramingError('encrypted part has no OriginalContent length');
    const typeLine = readLine(body, offset);
    if (!/content-type:\s*application\/octet-stream/i.test(typeLine.line)) throw new EncryptionFramingError('encrypted part is not octet-stream');
    offset = typeLine.next;
    if (offset + 4 > body.length) throw new EncryptionFramingError('truncated encrypted part');
    const signatureLength = body.readUInt32LE(offset);
    offset += 4;
    if (signatureLength !== 16 || offset + signatureLength + length > body.length) {
      throw new EncryptionFramingError('encrypted part is shorter than its declared length');
    }
    const signature = body.subarray(offset, offset + signatureLength);
    offset += signatureLength;
    const sealed = body.subarray(offset, offset + length);
    offset += length;
    out.push(security.unwrap(sealed, signature));
    if (offset >= body.length) break;
    // Next: another part's boundary line or the closing boundary, which the loop reads.
  }
  if (out.length === 0) throw new EncryptionFramingError('encrypted body has no parts');
  return { message: Buffer.concat(out), charset };
}
