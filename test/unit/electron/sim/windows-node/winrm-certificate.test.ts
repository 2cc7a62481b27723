import tls from 'node:tls';
import { describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../../../../../electron/sim/windows-node/winrm-server';

// A random serial with a zero first octet once made an illegally padded DER INTEGER, and OpenSSL refused the
// certificate about once in 256 starts of the WinRM endpoint (CI: "asn1 encoding routines::illegal padding").
describe('WinRM endpoint certificate', () => {
  it('is accepted by OpenSSL every time (3,000 fresh certificates)', () => {
    for (let i = 0; i < 3000; i++) {
      const cert = createSelfSignedCertificate('win-1', ['127.0.10.11'], ['win-1']);
      expect(() => tls.createSecureContext({ key: cert.keyPem, cert: cert.certPem })).not.toThrow();
    }
  });
});
