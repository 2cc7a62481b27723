import { useEffect, useState } from 'react';
import { CONTRACT_VERSION } from '../../shared/contract/version';
import { useClient, useConnection } from '../api/client-context';

/** A very visible banner while the backend connection is down, with the retry countdown and a retry button. */
export function ConnectionBanner() {
  const client = useClient();
  const connection = useConnection();
  const [now, setNow] = useState(() => Date.now());
  const waiting = connection.status === 'lost' && connection.nextRetryAt !== null;
  useEffect(() => {
    if (!waiting) return undefined;
    // A countdown for the banner only while it shows; not a data poll.
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [waiting]);

  const mismatch = connection.contractVersion !== null && connection.contractVersion !== CONTRACT_VERSION;
  if (mismatch) {
    return (
      <div className="banner banner-error" role="alert">
        This page speaks contract version {CONTRACT_VERSION} but the backend speaks {connection.contractVersion}. Reload the page (the backend was probably
        updated).
      </div>
    );
  }
  if (connection.status !== 'lost') return null;
  const seconds = connection.nextRetryAt === null ? null : Math.max(0, Math.ceil((connection.nextRetryAt - now) / 1000));
  const never = connection.generation === 0;
  return (
    <div className="banner banner-error" role="alert">
      <strong>{never ? 'Cannot reach the Windeck backend.' : 'Connection lost.'}</strong>{' '}
      {never
        ? 'Is `windeck serve` still running? If it was restarted, open the new URL it printed (the old token is no longer valid).'
        : 'Showing what was loaded before; it may be out of date.'}{' '}
      {seconds !== null && (
        <span>
          Retrying in {seconds} s (attempt {connection.attempt}).
        </span>
      )}{' '}
      <button type="button" className="small" onClick={() => client.reconnectNow()}>
        Retry now
      </button>
    </div>
  );
}
