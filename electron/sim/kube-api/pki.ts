import { createCertificate, generateKey, privateKeyPem } from './x509';

/** PEM material of one simulated cluster: a CA, the API server's certificate and one admin client certificate. */
export interface SimPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

export interface SimPkiOptions {
  /** Names the server certificate covers (besides 127.0.0.1 and localhost). */
  extraDnsNames?: string[];
  extraIps?: string[];
  clientCommonName?: string;
  /** Groups of the client identity (certificate O fields). */
  clientGroups?: string[];
  now?: Date;
  validDays?: number;
}

/** A fresh throwaway CA with a server and a client certificate. Nothing here is a secret of a real system. */
export function generateSimPki(options: SimPkiOptions = {}): SimPki {
  const now = options.now ?? new Date();
  const notBefore = new Date(now.getTime() - 60 * 60 * 1000);
  const notAfter = new Date(now.getTime() + (options.validDays ?? 365) * 24 * 60 * 60 * 1000);
  const ca = generateKey();
  const caName = { commonName: 'windeck-sim-ca', organizations: ['Windeck simulator'] };
  const caCert = createCertificate({ subject: caName, issuer: caName, publicKey: ca.publicKey, issuerKey: ca.privateKey, issuerPublicKey: ca.publicKey, isCa: true, notBefore, notAfter });
  const server = generateKey();
  const serverCert = createCertificate({
    subject: { commonName: 'kube-apiserver' },
    issuer: caName,
    publicKey: server.publicKey,
    issuerKey: ca.privateKey,
    issuerPublicKey: ca.publicKey,
    isCa: false,
    serverAuth: true,
    dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', ...(options.extraDnsNames ?? [])],
    ipAddresses: ['127.0.0.1', ...(options.extraIps ?? [])],
    notBefore,
    notAfter,
  });
  const client = generateKey();
  const clientCert = createCertificate({
    subject: { commonName: options.clientCommonName ?? 'windeck-demo-admin', organizations: options.clientGroups ?? ['system:masters'] },
    issuer: caName,
    publicKey: client.publicKey,
    issuerKey: ca.privateKey,
    issuerPublicKey: ca.publicKey,
    isCa: false,
    clientAuth: true,
    notBefore,
    notAfter,
  });
  return { caCert, serverCert, serverKey: privateKeyPem(server.privateKey), clientCert, clientKey: privateKeyPem(client.privateKey) };
}
